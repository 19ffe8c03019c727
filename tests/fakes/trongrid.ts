/**
 * A local stand-in for TronGrid's full-node HTTP API, the three calls the payment check makes, in
 * java-tron's wire format (developers.tron.network, tronprotocol documentation):
 * - POST /walletsolidity/gettransactioninfobyid and /wallet/gettransactioninfobyid, body
 *   `{ "value": "<64 hex>" }`: a TransactionInfo (`id`, `blockNumber`, `receipt.result`, `log[]`
 *   with hex `address`, `topics` and `data`, no 0x), or `{}` when the node has none (the solidity
 *   node has none until the block is solidified);
 * - POST /walletsolidity/getnowblock: the latest solidified block (`block_header.raw_data.number`).
 * A wrong TRON-PRO-API-KEY is refused with 401 as TronGrid does; modes stand in for a rate limit
 * (429), an answer that is not JSON, a server error and a node too slow to answer.
 */
import { sendHtml, sendJson, stalledUntilClientLeft, startHttpFake } from './http-fake.ts'
import { TRANSFER_EVENT, word, type FakeChainTransaction } from './chain-fixtures.ts'

export type TronGridMode = 'normal' | 'rate_limit' | 'garbage' | 'server_error' | 'slow'

interface TronTransaction extends FakeChainTransaction {
  blockNumber: number
}

export interface TronGridFake {
  url: string
  apiKey: string
  /** Every request: path, TRON-PRO-API-KEY header and JSON body. */
  requests: { path: string; apiKey: string | undefined; body: unknown }[]
  /** A transaction in block `blockNumber`; it is final once the solidified head reaches that block. */
  addTransaction(txid: string, transaction: TronTransaction): void
  setSolidifiedBlock(number: number): void
  setMode(mode: TronGridMode): void
  /** Changes the key the fake accepts (a revoked key: the configured one is refused from now on). */
  setApiKey(key: string): void
  close(): Promise<void>
}

export async function startTronGridFake(options: { apiKey?: string } = {}): Promise<TronGridFake> {
  const configuredKey = options.apiKey ?? 'trongrid-test-key'
  let apiKey = configuredKey
  const transactions = new Map<string, TronTransaction>()
  const requests: TronGridFake['requests'] = []
  let solidified = 66_000_000
  let mode: TronGridMode = 'normal'

  const server = await startHttpFake(async (request, response) => {
    const key = request.headers['tron-pro-api-key']
    const sentKey = Array.isArray(key) ? key[0] : key
    let body: unknown = {}
    try {
      body = request.body.length ? JSON.parse(request.body.toString('utf8')) : {}
    } catch {
      return sendJson(response, 200, { Error: 'com.google.gson.JsonSyntaxException: malformed JSON' })
    }
    requests.push({ path: request.path, apiKey: sentKey, body })

    if (sentKey !== undefined && sentKey !== apiKey) {
      return sendJson(response, 401, { Success: false, Error: 'ApiKey not exists', StatusCode: 401 })
    }
    if (mode === 'rate_limit') {
      return sendJson(response, 429, {
        Success: false,
        Error: 'The key exceeds the frequency limit(15), and the query server is suspended for 30s',
        StatusCode: 429,
      })
    }
    if (mode === 'server_error') return sendJson(response, 503, { Error: 'Service Unavailable' })
    if (mode === 'garbage') return sendHtml(response, 200, '<html><body>upstream connect error</body></html>')
    if (mode === 'slow' && (await stalledUntilClientLeft(response))) return
    if (request.method !== 'POST' && request.method !== 'GET')
      return sendJson(response, 405, { Error: 'Method Not Allowed' })

    switch (request.path) {
      case '/walletsolidity/gettransactioninfobyid':
      case '/wallet/gettransactioninfobyid': {
        const value = (body as { value?: unknown }).value
        if (typeof value !== 'string' || !/^[0-9a-f]{64}$/i.test(value)) {
          return sendJson(response, 200, {
            Error: 'class java.lang.IllegalArgumentException : value must be a 32-byte transaction id in hex',
          })
        }
        const transaction = transactions.get(value.toLowerCase())
        const visible = transaction && (request.path.startsWith('/wallet/') || transaction.blockNumber <= solidified)
        return sendJson(response, 200, visible ? transactionInfo(value.toLowerCase(), transaction) : {})
      }
      case '/walletsolidity/getnowblock':
        return sendJson(response, 200, nowBlock(solidified))
      default:
        return sendHtml(response, 404, '<html><body>404 Not Found</body></html>')
    }
  })

  return {
    url: server.url,
    apiKey: configuredKey,
    requests,
    addTransaction: (txid, transaction) => transactions.set(txid.toLowerCase(), transaction),
    setSolidifiedBlock: (number) => {
      solidified = number
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

/** protocol.TransactionInfo as java-tron prints it: hex without 0x, 20-byte addresses in logs. */
function transactionInfo(txid: string, transaction: TronTransaction) {
  const contract = transaction.transfers[0]?.token ?? 'a614f803b6fd780986a42c78ec9c7f77e6ded13c'
  const common = {
    id: txid,
    fee: 13_844_850,
    blockNumber: transaction.blockNumber,
    blockTimeStamp: 1_763_900_000_000 + transaction.blockNumber * 3000,
    contract_address: `41${contract}`,
  }
  if (!transaction.success) {
    return {
      ...common,
      contractResult: [''],
      receipt: { energy_usage_total: 64_285, net_usage: 345, result: 'REVERT' },
      result: 'FAILED',
      resMessage: Buffer.from('REVERT opcode executed').toString('hex'),
    }
  }
  return {
    ...common,
    contractResult: [word('1')],
    receipt: { energy_usage_total: 64_285, net_usage: 345, result: 'SUCCESS' },
    log: transaction.transfers.map((transfer) => ({
      address: transfer.token,
      topics: [TRANSFER_EVENT, word(transfer.from), word(transfer.to)],
      data: word(transfer.units.toString(16)),
    })),
  }
}

function nowBlock(number: number) {
  return {
    blockID: number.toString(16).padStart(16, '0') + 'f6b6d392f654dc2e5011601546ed04623d9fcc4e9d439a25',
    block_header: {
      raw_data: {
        number,
        txTrieRoot: 'f8156964cc3e5793a368f938a18ea45c02bd48fe3a412f7091ce8d9ef56df174',
        witness_address: '41e7860196ad5b5718c1d6326babab039b70b8c1cd',
        parentHash: (number - 1).toString(16).padStart(16, '0') + '52e7a8f8b5c1d3e9a0f4b2c6d8e0a1b3c5d7e9f1a2b3c4d5',
        version: 32,
        timestamp: 1_763_900_000_000 + number * 3000,
      },
      witness_signature: 'ab'.repeat(65),
    },
  }
}
