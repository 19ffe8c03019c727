/**
 * A local stand-in for Etherscan's V2 API (GET /v2/api), proxy module, the two calls the payment
 * check makes, as docs.etherscan.io documents them:
 * - action=eth_getTransactionReceipt&txhash=0x…: `{ jsonrpc: "2.0", id: 1, result }`, result null
 *   while the transaction is pending or unknown, else the receipt (`status` 0x1/0x0, `blockNumber`,
 *   `logs[]` with 0x-hex `address`, `topics`, `data`);
 * - action=eth_blockNumber: `{ jsonrpc: "2.0", id: 83, result: "0x…" }`.
 * Etherscan's own refusals answer HTTP 200 `{ status: "0", message: "NOTOK", result: "…" }`: a
 * missing or wrong apikey ("Invalid API Key"), a missing chainid, an unknown module or action, and
 * the `rate_limit` mode ("Max rate limit reached"); a malformed txhash is a JSON-RPC `error`.
 */
import { sendHtml, sendJson, stalledUntilClientLeft, startHttpFake } from './http-fake.ts'
import { TRANSFER_EVENT, word, type FakeChainTransaction } from './chain-fixtures.ts'

export type EtherscanMode = 'normal' | 'rate_limit' | 'garbage' | 'server_error' | 'slow'

export interface EtherscanFake {
  /** The value for ETHERSCAN_API_URL (ends in /v2/api). */
  apiUrl: string
  apiKey: string
  requests: URLSearchParams[]
  addTransaction(txhash: string, transaction: FakeChainTransaction): void
  /** Mines a pending transaction into `blockNumber`. */
  mine(txhash: string, blockNumber: number): void
  setLatestBlock(number: number): void
  setMode(mode: EtherscanMode): void
  /** Changes the key the fake accepts (a revoked key: the configured one is refused from now on). */
  setApiKey(key: string): void
  close(): Promise<void>
}

const notOk = (result: string) => ({ status: '0', message: 'NOTOK', result })

export async function startEtherscanFake(options: { apiKey?: string } = {}): Promise<EtherscanFake> {
  const configuredKey = options.apiKey ?? 'ETHERSCANTESTKEY1234567890ABCDEFGH'
  let apiKey = configuredKey
  const transactions = new Map<string, FakeChainTransaction>()
  const requests: URLSearchParams[] = []
  let latest = 21_000_000
  let mode: EtherscanMode = 'normal'

  const server = await startHttpFake(async (request, response) => {
    if (request.path !== '/v2/api') {
      return sendHtml(response, 404, '<html><body>404 - Page not found</body></html>')
    }
    const query = request.query
    requests.push(query)
    if (mode === 'server_error') {
      return sendHtml(response, 503, '<html><body>503 Service Temporarily Unavailable</body></html>')
    }
    if (mode === 'garbage') return sendHtml(response, 200, '<!DOCTYPE html><html><body>Just a moment...</body></html>')
    if (mode === 'slow' && (await stalledUntilClientLeft(response))) return
    if (query.get('chainid') !== '1') {
      return sendJson(
        response,
        200,
        notOk(
          'Missing or unsupported chainid parameter (required for v2 api), please see https://api.etherscan.io/v2/chainlist for the list of supported chainids',
        ),
      )
    }
    if (query.get('apikey') !== apiKey) return sendJson(response, 200, notOk('Invalid API Key'))
    if (mode === 'rate_limit') return sendJson(response, 200, notOk('Max rate limit reached'))
    if (query.get('module') !== 'proxy') return sendJson(response, 200, notOk('Error! Missing Or invalid Module name'))

    switch (query.get('action')) {
      case 'eth_blockNumber':
        return sendJson(response, 200, { jsonrpc: '2.0', id: 83, result: `0x${latest.toString(16)}` })
      case 'eth_getTransactionReceipt': {
        const txhash = query.get('txhash') ?? ''
        if (!/^0x[0-9a-f]{64}$/i.test(txhash)) {
          const length = txhash.replace(/^0x/i, '').length
          return sendJson(response, 200, {
            jsonrpc: '2.0',
            id: 1,
            error: {
              code: -32602,
              message: `invalid argument 0: hex string has length ${length}, want 64 for common.Hash`,
            },
          })
        }
        const transaction = transactions.get(txhash.toLowerCase())
        const mined = transaction && transaction.blockNumber !== null && transaction.blockNumber <= latest
        return sendJson(response, 200, {
          jsonrpc: '2.0',
          id: 1,
          result: mined ? receipt(txhash.toLowerCase(), transaction) : null,
        })
      }
      default:
        return sendJson(response, 200, notOk('Error! Missing Or invalid Action name'))
    }
  })

  return {
    apiUrl: `${server.url}/v2/api`,
    apiKey: configuredKey,
    requests,
    addTransaction: (txhash, transaction) => transactions.set(txhash.toLowerCase(), transaction),
    mine: (txhash, blockNumber) => {
      const transaction = transactions.get(txhash.toLowerCase())
      if (transaction) transaction.blockNumber = blockNumber
    },
    setLatestBlock: (number) => {
      latest = number
    },
    setMode: (next) => {
      mode = next
    },
    setApiKey: (key) => {
      apiKey = key
    },
    close: server.close,
  }
}

const hex = (value: number | bigint) => `0x${value.toString(16)}`

/** An eth_getTransactionReceipt result as geth (and so Etherscan's proxy) prints it. */
function receipt(txhash: string, transaction: FakeChainTransaction) {
  const blockNumber = hex(transaction.blockNumber ?? 0)
  const blockHash = `0x${word((transaction.blockNumber ?? 0).toString(16)).replace(/^0{8}/, 'b10cb10c')}`
  const contract = transaction.transfers[0]?.token ?? 'dac17f958d2ee523a2206206994597c13d831ec7'
  const from = transaction.transfers[0]?.from ?? '292f04a44506c2fd49bac032e1ca148c35a478c8'
  return {
    blockHash,
    blockNumber,
    contractAddress: null,
    cumulativeGasUsed: '0xeb67d5',
    effectiveGasPrice: '0x1a96b24c26',
    from: `0x${from}`,
    gasUsed: transaction.success ? '0xb41d' : '0x6a4c',
    logs: transaction.success
      ? transaction.transfers.map((transfer, index) => ({
          address: `0x${transfer.token}`,
          topics: [`0x${TRANSFER_EVENT}`, `0x${word(transfer.from)}`, `0x${word(transfer.to)}`],
          data: `0x${word(transfer.units.toString(16))}`,
          blockNumber,
          transactionHash: txhash,
          transactionIndex: '0x122',
          blockHash,
          logIndex: hex(0xdb + index),
          removed: false,
        }))
      : [],
    logsBloom: `0x${'0'.repeat(512)}`,
    status: transaction.success ? '0x1' : '0x0',
    to: `0x${contract}`,
    transactionHash: txhash,
    transactionIndex: '0x122',
    type: '0x2',
  }
}
