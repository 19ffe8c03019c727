/**
 * Looks an Ethereum transaction up through Etherscan's V2 API, proxy module (chainid=1):
 * - action=eth_getTransactionReceipt: the JSON-RPC receipt (`result` null while pending or unknown;
 *   `status` 0x1 for success; the Transfer logs with 0x-hex topics and data);
 * - action=eth_blockNumber: the latest block, for the confirmation count. A receipt is final once
 *   it is ETHEREUM_CONFIRMATIONS blocks deep.
 * Etherscan reports its own errors (bad key, rate limit) as `{ status: "0", message: "NOTOK",
 * result: "…" }` with HTTP 200, and node errors as JSON-RPC `error`; both leave the proof unavailable.
 */
import { z } from 'zod'
import { ChainUnavailableError, type ChainLookup, type TokenTransfer } from '#domain/payments/chain-transfer.ts'
import { addressFromWord } from '#domain/payments/chain-address.server.ts'
import { callChainApi, readAnswer, TRANSFER_TOPIC, type ChainCallOptions } from './chain-http.ts'

const SERVICE = 'Etherscan'
const MAINNET = '1'

export interface EtherscanConfig {
  baseUrl: string
  apiKey?: string
  confirmationsRequired: number
}

const quantity = z.string().regex(/^0x[0-9a-f]+$/i)
const data = z.string().regex(/^0x[0-9a-f]*$/i)

const receiptSchema = z.object({
  status: quantity,
  blockNumber: quantity,
  logs: z.array(z.object({ address: data, topics: z.array(data), data })),
})

export async function lookupEthereumTransaction(
  txhash: string,
  config: EtherscanConfig,
  options: ChainCallOptions,
): Promise<ChainLookup> {
  const call = async (action: string, params: Record<string, string> = {}) => {
    const query = new URLSearchParams({
      chainid: MAINNET,
      module: 'proxy',
      action,
      ...params,
      apikey: config.apiKey ?? '',
    })
    const body = await callChainApi(
      SERVICE,
      `${config.baseUrl}?${query}`,
      { headers: { accept: 'application/json' } },
      { ...options, secrets: [...options.secrets, config.apiKey ?? ''] },
    )
    return jsonRpcResult(body)
  }

  const receipt = await call('eth_getTransactionReceipt', { txhash })
  if (receipt === null) return { found: false }
  const parsed = readAnswer(SERVICE, receipt, receiptSchema)
  const latest = readAnswer(SERVICE, await call('eth_blockNumber'), quantity)
  const confirmations = Math.max(0, Number(BigInt(latest) - BigInt(parsed.blockNumber)) + 1)
  return {
    found: true,
    failure: BigInt(parsed.status) === 1n ? null : `status ${parsed.status} (reverted)`,
    transfers: parsed.logs.flatMap(transferOf),
    confirmations,
    final: confirmations >= config.confirmationsRequired,
  }
}

const notOkSchema = z.object({ status: z.literal('0'), message: z.string(), result: z.unknown() })
const rpcErrorSchema = z.object({ error: z.object({ message: z.string() }) })
/** `result` must be there: null (no receipt yet) is an answer, a missing result is not. */
const rpcResultSchema = z.object({
  jsonrpc: z.literal('2.0'),
  result: z.custom<unknown>((value) => value !== undefined),
})

/** The JSON-RPC `result`, or a ChainUnavailableError for Etherscan's and the node's error shapes. */
function jsonRpcResult(body: unknown): unknown {
  const notOk = notOkSchema.safeParse(body)
  if (notOk.success) throw new ChainUnavailableError(`${SERVICE} refused the request: ${String(notOk.data.result)}`)
  const rpcError = rpcErrorSchema.safeParse(body)
  if (rpcError.success) throw new ChainUnavailableError(`${SERVICE} returned an error: ${rpcError.data.error.message}`)
  return readAnswer(SERVICE, body, rpcResultSchema).result
}

function transferOf(log: z.infer<typeof receiptSchema>['logs'][number]): TokenTransfer[] {
  const [topic, , to] = log.topics
  const amount = log.data.slice(2)
  if (topic?.slice(2).toLowerCase() !== TRANSFER_TOPIC || !to || amount.length !== 64) return []
  return [{ token: log.address.toLowerCase(), to: `0x${addressFromWord(to)}`, units: BigInt(`0x${amount}`) }]
}
