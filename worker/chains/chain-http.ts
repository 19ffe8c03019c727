/**
 * One JSON call to a chain API (TronGrid, Etherscan) with a time limit. Anything short of a readable
 * JSON answer (network failure, timeout, an HTTP error status such as 429, a body that is not JSON)
 * becomes a ChainUnavailableError, which leaves the proof `unavailable` and is retried later.
 */
import { ChainUnavailableError } from '#domain/payments/chain-transfer.ts'
import { errorForStatus, requestJson, shorten, type HttpCallOptions } from '../providers/http.ts'

export type ChainCallOptions = Omit<HttpCallOptions, 'service'>

export async function callChainApi(
  service: string,
  url: string,
  init: RequestInit,
  options: ChainCallOptions,
): Promise<unknown> {
  const http = { ...options, service }
  let answer
  try {
    answer = await requestJson(url, init, http)
  } catch (error) {
    throw new ChainUnavailableError(error instanceof Error ? error.message : String(error))
  }
  if (!answer.ok) throw new ChainUnavailableError(errorForStatus(answer.status, answer.text, http).message)
  if (answer.body === undefined) {
    throw new ChainUnavailableError(`${service} answered something that is not JSON: ${shorten(answer.text, 80)}`)
  }
  return answer.body
}

/** Reads an answer with a zod-like parser; a shape we do not know is an outage, never a verdict. */
export function readAnswer<T>(
  service: string,
  body: unknown,
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
): T {
  const parsed = schema.safeParse(body)
  if (!parsed.success) throw new ChainUnavailableError(`${service} answered in a form we do not understand`)
  return parsed.data
}

/** keccak256("Transfer(address,address,uint256)"), the first topic of every ERC20/TRC20 Transfer event. */
export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
