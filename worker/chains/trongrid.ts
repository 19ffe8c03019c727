/**
 * Looks a TRON transaction up on TronGrid's full-node HTTP API:
 * - POST /walletsolidity/gettransactioninfobyid `{ value: txid }`: the TransactionInfo once the
 *   block is solidified (final: TRON's solidified blocks cannot be rolled back); `{}` otherwise;
 * - POST /wallet/gettransactioninfobyid, asked only when the solidified node has nothing, tells a
 *   transfer that is in a block but not final yet (`unconfirmed`) from one that does not exist;
 * - POST /walletsolidity/getnowblock: the latest solidified block, for the confirmation count.
 * TRON's event logs carry hex without 0x: `address` and the address topics are 20-byte account ids
 * that become T-addresses with the 0x41 prefix. TRONGRID_API_KEY goes in `TRON-PRO-API-KEY`.
 */
import { z } from 'zod'
import type { ChainLookup, TokenTransfer } from '#domain/payments/chain-transfer.ts'
import { addressFromWord, tronAddressFromHex } from '#domain/payments/chain-address.server.ts'
import { callChainApi, readAnswer, TRANSFER_TOPIC, type ChainCallOptions } from './chain-http.ts'

const SERVICE = 'TronGrid'

export interface TronGridConfig {
  baseUrl: string
  apiKey?: string
}

const hex = z.string().regex(/^[0-9a-f]*$/i)

const transactionInfoSchema = z.object({
  id: z.string(),
  blockNumber: z.number().int().nonnegative(),
  result: z.string().optional(),
  resMessage: hex.optional(),
  receipt: z.object({ result: z.string().optional() }).passthrough().default({}),
  log: z
    .array(z.object({ address: hex.length(40), topics: z.array(hex.length(64)), data: hex.optional() }))
    .default([]),
})

const nowBlockSchema = z.object({
  block_header: z.object({ raw_data: z.object({ number: z.number().int().nonnegative() }) }),
})

export async function lookupTronTransaction(
  txid: string,
  config: TronGridConfig,
  options: ChainCallOptions,
): Promise<ChainLookup> {
  const post = (path: string, body: object) =>
    callChainApi(
      SERVICE,
      `${config.baseUrl.replace(/\/$/, '')}${path}`,
      {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          ...(config.apiKey ? { 'TRON-PRO-API-KEY': config.apiKey } : {}),
        },
        body: JSON.stringify(body),
      },
      { ...options, secrets: [...options.secrets, config.apiKey ?? ''] },
    )

  let info = transactionInfo(await post('/walletsolidity/gettransactioninfobyid', { value: txid }))
  const final = info !== null
  info ??= transactionInfo(await post('/wallet/gettransactioninfobyid', { value: txid }))
  if (!info) return { found: false }

  const now = readAnswer(SERVICE, await post('/walletsolidity/getnowblock', {}), nowBlockSchema)
  return {
    found: true,
    failure: failureOf(info),
    transfers: info.log.flatMap(transferOf),
    confirmations: Math.max(0, now.block_header.raw_data.number - info.blockNumber + 1),
    final,
  }
}

/** The TransactionInfo, or null for the `{}` java-tron answers when it has none. */
function transactionInfo(body: unknown) {
  if (typeof body === 'object' && body !== null && Object.keys(body).length === 0) return null
  return readAnswer(SERVICE, body, transactionInfoSchema)
}

/** A contract call succeeded only with receipt.result SUCCESS; a plain TRX transfer has no receipt.result. */
function failureOf(info: z.infer<typeof transactionInfoSchema>): string | null {
  const receiptResult = info.receipt.result
  if (info.result !== 'FAILED' && (receiptResult === undefined || receiptResult === 'SUCCESS')) return null
  const reason = info.resMessage ? Buffer.from(info.resMessage, 'hex').toString('utf8').trim() : ''
  return [receiptResult ?? info.result, reason].filter(Boolean).join(' ')
}

function transferOf(log: z.infer<typeof transactionInfoSchema>['log'][number]): TokenTransfer[] {
  const [topic, , to] = log.topics
  if (topic?.toLowerCase() !== TRANSFER_TOPIC || !to || !log.data || log.data.length !== 64) return []
  return [
    {
      token: tronAddressFromHex(log.address),
      to: tronAddressFromHex(addressFromWord(to)),
      units: BigInt(`0x${log.data}`),
    },
  ]
}
