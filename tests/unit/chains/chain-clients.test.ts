import { ChainUnavailableError } from '#domain/payments/chain-transfer.ts'
import { ETHEREUM_USDT, randomAccount, randomHash, TRON_USDT, tronAddress } from '#tests/fakes/chain-fixtures.ts'
import { startEtherscanFake } from '#tests/fakes/etherscan.ts'
import { startTronGridFake } from '#tests/fakes/trongrid.ts'
import { lookupEthereumTransaction } from '#worker/chains/etherscan.ts'
import { lookupTronTransaction } from '#worker/chains/trongrid.ts'

// The chain clients against the fakes, for what the payment check never sends (malformed ids,
// missing parameters): the fakes refuse them as the real APIs do, and the clients report an outage.
const tron = await startTronGridFake()
const etherscan = await startEtherscanFake()
afterAll(() => Promise.all([tron.close(), etherscan.close()]))

const options = { timeoutMs: 2_000, signal: new AbortController().signal, secrets: [] }
const tronConfig = { baseUrl: tron.url, apiKey: tron.apiKey }
const ethereumConfig = { baseUrl: etherscan.apiUrl, apiKey: etherscan.apiKey, confirmationsRequired: 12 }

describe('TronGrid', () => {
  test('a transfer is read from the log: T-addresses, amount, confirmations against the solidified head', async () => {
    const txid = randomHash()
    const to = randomAccount()
    tron.setSolidifiedBlock(500)
    tron.addTransaction(txid, {
      blockNumber: 490,
      success: true,
      transfers: [{ token: TRON_USDT.account, from: randomAccount(), to, units: 1_500_000n }],
    })
    expect(await lookupTronTransaction(txid, tronConfig, options)).toEqual({
      found: true,
      failure: null,
      transfers: [{ token: TRON_USDT.base58, to: tronAddress(to), units: 1_500_000n }],
      confirmations: 11,
      final: true,
    })
  })

  test('a value that is not a transaction id is refused by the node: an outage, never a verdict', async () => {
    await expect(lookupTronTransaction('xyz', tronConfig, options)).rejects.toThrow(ChainUnavailableError)
    await expect(lookupTronTransaction('xyz', tronConfig, options)).rejects.toThrow(/form we do not understand/)
  })

  test('the key goes in TRON-PRO-API-KEY; without one, TronGrid still answers', async () => {
    const txid = randomHash()
    await lookupTronTransaction(txid, { baseUrl: tron.url }, options)
    expect(tron.requests.filter((request) => (request.body as { value?: string }).value === txid)).toEqual([
      { path: '/walletsolidity/gettransactioninfobyid', apiKey: undefined, body: { value: txid } },
      { path: '/wallet/gettransactioninfobyid', apiKey: undefined, body: { value: txid } },
    ])
  })
})

describe('Etherscan', () => {
  test('a malformed hash gets a JSON-RPC error, reported as an outage', async () => {
    await expect(lookupEthereumTransaction('0x1234', ethereumConfig, options)).rejects.toThrow(
      'Etherscan returned an error: invalid argument 0: hex string has length 4, want 64 for common.Hash',
    )
  })

  test('a transfer is read from the receipt in lower-case 0x addresses', async () => {
    const txhash = `0x${randomHash()}`
    const to = randomAccount()
    etherscan.setLatestBlock(1000)
    etherscan.addTransaction(txhash, {
      blockNumber: 995,
      success: true,
      transfers: [{ token: ETHEREUM_USDT.account, from: randomAccount(), to, units: 7n }],
    })
    expect(await lookupEthereumTransaction(txhash, ethereumConfig, options)).toEqual({
      found: true,
      failure: null,
      transfers: [{ token: `0x${ETHEREUM_USDT.account}`, to: `0x${to}`, units: 7n }],
      confirmations: 6,
      final: false,
    })
  })

  test('a request without chainid is refused the way Etherscan V2 refuses it', async () => {
    const response = await fetch(`${etherscan.apiUrl}?module=proxy&action=eth_blockNumber&apikey=${etherscan.apiKey}`)
    expect(await response.json()).toEqual({
      status: '0',
      message: 'NOTOK',
      result: expect.stringMatching(/^Missing or unsupported chainid parameter/),
    })
  })
})
