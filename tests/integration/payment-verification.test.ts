import { loader as pendingLoader } from '#app/routes/api.image.pending-payment-proofs.ts'
import { action as reviewPageAction, loader as reviewPageLoader } from '#app/routes/payment-review.tsx'
import { MAX_FAILURES } from '#domain/payments/payment-check.server.ts'
import { getDb } from '#platform/db.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import {
  ethereumTxhash,
  endWatchIn,
  queuedCheck,
  runQueuedCheck,
  startChainFakes,
  storedVerification,
  submitUsdtProof,
  tronTxid,
} from '#tests/helpers/payment-checks.ts'
import { proofStatus, submitProof } from '#tests/helpers/payments.ts'
import { ETHEREUM_USDT, randomAccount, TRON_USDT, tronAddress } from '#tests/fakes/chain-fixtures.ts'

// The on-chain check with automatic approval off (its default): results are stored, nothing is
// approved. payment-auto-approval.test.ts covers approval.
const { tron, etherscan, ourTronAccount, ourEthereumAccount, close } = await startChainFakes({ autoApprove: false })
afterAll(close)

const SOLIDIFIED = 66_000_000
const LATEST = 21_000_000
const usdt = (dollars: number) => BigInt(Math.round(dollars * 1_000_000))
const tronTransfer = (to: string, units: bigint, token = TRON_USDT.account) => ({
  token,
  from: randomAccount(),
  to,
  units,
})
const ethTransfer = (to: string, units: bigint, token = ETHEREUM_USDT.account) => ({
  token,
  from: randomAccount(),
  to,
  units,
})

beforeEach(() => {
  tron.setApiKey(tron.apiKey)
  etherscan.setApiKey(etherscan.apiKey)
  tron.setMode('normal')
  tron.setSolidifiedBlock(SOLIDIFIED)
  etherscan.setMode('normal')
  etherscan.setLatestBlock(LATEST)
})

async function checkedTronProof(transaction: Parameters<typeof tron.addTransaction>[1] | null) {
  const { token } = await createTestUser()
  const txid = tronTxid()
  if (transaction) tron.addTransaction(txid, transaction)
  const proof = await submitUsdtProof(token, 'usdt_trc20', txid)
  await runQueuedCheck(proof.id)
  return { proof, txid, verification: await storedVerification(proof.id) }
}

async function checkedEthereumProof(transaction: Parameters<typeof etherscan.addTransaction>[1] | null) {
  const { token } = await createTestUser()
  const txhash = ethereumTxhash()
  if (transaction) etherscan.addTransaction(txhash, transaction)
  const proof = await submitUsdtProof(token, 'usdt_erc20', txhash)
  await runQueuedCheck(proof.id)
  return { proof, txhash, verification: await storedVerification(proof.id) }
}

/** The delay before the queued check, in whole seconds from now. */
async function secondsUntilNextCheck(proofId: string) {
  const job = await queuedCheck(proofId)
  return job ? Math.round((job.run_at.getTime() - Date.now()) / 1000) : null
}

describe('a submitted USDT proof', () => {
  test('queues an on-chain check; a PayPal proof does not', async () => {
    const { token } = await createTestUser()
    const usdtProof = await submitUsdtProof(token, 'usdt_trc20', tronTxid())
    const paypal = await submitProof(token, { creditAmount: '100', paymentMethod: 'paypal_me', transactionId: 'PP-1' })
    expect(paypal.status).toBe(201)
    expect((await queuedCheck(usdtProof.id))?.payload).toMatchObject({ proofId: usdtProof.id, failures: 0 })
    expect(await queuedCheck(paypal.body.proof.id)).toBeUndefined()
  })

  test.each([
    ['usdt_trc20', 'abc123', 'A USDT (TRC20) transaction ID is 64 hexadecimal characters'],
    ['usdt_trc20', `0x${'a'.repeat(64)}`, 'A USDT (TRC20) transaction ID is 64 hexadecimal characters'],
    ['usdt_trc20', 'g'.repeat(64), 'A USDT (TRC20) transaction ID is 64 hexadecimal characters'],
    ['usdt_erc20', 'a'.repeat(64), 'A USDT (ERC20) transaction hash is 0x followed by 64 hexadecimal characters'],
    [
      'usdt_erc20',
      `0x${'a'.repeat(63)}`,
      'A USDT (ERC20) transaction hash is 0x followed by 64 hexadecimal characters',
    ],
  ])('%s with transaction id %s is refused with a clear message', async (paymentMethod, transactionId, message) => {
    const { token } = await createTestUser()
    const result = await submitProof(token, { creditAmount: '100', paymentMethod, transactionId })
    expect(result.status).toBe(400)
    expect(result.body.message).toContain(message)
  })
})

describe('TRC20 (TronGrid)', () => {
  test('a final transfer of the full price to our wallet is confirmed, and stays pending for review', async () => {
    const { proof, txid, verification } = await checkedTronProof({
      blockNumber: SOLIDIFIED - 30,
      success: true,
      transfers: [tronTransfer(ourTronAccount, usdt(25))],
    })
    expect(verification).toMatchObject({
      status: 'confirmed',
      network: 'tron',
      amount_usd: '25.000000',
      to_address: tronAddress(ourTronAccount),
      confirmations: 31,
    })
    expect(await proofStatus(proof.id)).toBe('pending')
    expect(await queuedCheck(proof.id)).toBeUndefined()
    const lookup = tron.requests.find((request) => (request.body as { value?: string }).value === txid)
    expect(lookup).toEqual({
      path: '/walletsolidity/gettransactioninfobyid',
      apiKey: tron.apiKey,
      body: { value: txid },
    })
  })

  test('a transfer to another wallet is a mismatch naming that wallet', async () => {
    const stranger = randomAccount()
    const { verification } = await checkedTronProof({
      blockNumber: SOLIDIFIED - 5,
      success: true,
      transfers: [tronTransfer(stranger, usdt(25))],
    })
    expect(verification).toMatchObject({
      status: 'mismatch',
      to_address: tronAddress(stranger),
      amount_usd: '25.000000',
    })
    expect(verification?.detail).toBe(
      `The USDT went to another wallet (${tronAddress(stranger)}), not to ours (${tronAddress(ourTronAccount)})`,
    )
  })

  test('an underpayment is a mismatch saying how much arrived', async () => {
    const { verification } = await checkedTronProof({
      blockNumber: SOLIDIFIED - 5,
      success: true,
      transfers: [tronTransfer(ourTronAccount, usdt(24.99))],
    })
    expect(verification).toMatchObject({
      status: 'mismatch',
      detail: 'Underpaid: 24.990000 USDT received, 25.000000 due',
    })
  })

  test('a failed (reverted) transaction is a mismatch', async () => {
    const { verification } = await checkedTronProof({ blockNumber: SOLIDIFIED - 5, success: false, transfers: [] })
    expect(verification).toMatchObject({ status: 'mismatch' })
    expect(verification?.detail).toMatch(/^The transaction failed on chain: REVERT/)
  })

  test('another token is a mismatch', async () => {
    const otherToken = randomAccount()
    const { verification } = await checkedTronProof({
      blockNumber: SOLIDIFIED - 5,
      success: true,
      transfers: [tronTransfer(ourTronAccount, usdt(25), otherToken)],
    })
    expect(verification).toMatchObject({
      status: 'mismatch',
      detail: `Another token was sent (contract ${tronAddress(otherToken)}), not USDT`,
    })
  })

  test('an unknown transaction is not_found and checked again in a minute', async () => {
    const { proof, verification } = await checkedTronProof(null)
    expect(verification).toMatchObject({ status: 'not_found', network: 'tron', amount_usd: null })
    expect(await secondsUntilNextCheck(proof.id)).toBe(60)
  })

  test('a transfer not yet solidified is unconfirmed, checked every minute, and confirmed once final', async () => {
    const { proof, verification } = await checkedTronProof({
      blockNumber: SOLIDIFIED + 5,
      success: true,
      transfers: [tronTransfer(ourTronAccount, usdt(25))],
    })
    expect(verification).toMatchObject({ status: 'unconfirmed', amount_usd: '25.000000', confirmations: 0 })
    expect(await secondsUntilNextCheck(proof.id)).toBe(60)

    tron.setSolidifiedBlock(SOLIDIFIED + 6)
    await runQueuedCheck(proof.id)
    expect(await storedVerification(proof.id)).toMatchObject({ status: 'confirmed', confirmations: 2 })
    expect(await queuedCheck(proof.id)).toBeUndefined()
  })

  test('after the hour of watching, a transfer still not found is no longer checked', async () => {
    const { token } = await createTestUser()
    const proof = await submitUsdtProof(token, 'usdt_trc20', tronTxid())
    await endWatchIn(proof.id, 30_000)
    await runQueuedCheck(proof.id)
    expect(await storedVerification(proof.id)).toMatchObject({ status: 'not_found' })
    expect(await queuedCheck(proof.id)).toBeUndefined()
  })

  test.each([
    ['a rate limit (429)', 'rate_limit', /too many requests/],
    ['an answer that is not JSON', 'garbage', /not JSON/],
    ['a server error', 'server_error', /temporarily unavailable/],
    ['a timeout', 'slow', /did not answer within 0.5 s/],
  ] as const)('%s leaves the proof unavailable, retried with a growing backoff', async (_, mode, detail) => {
    tron.addTransaction(tronTxid(), { blockNumber: 1, success: true, transfers: [] })
    tron.setMode(mode)
    const { proof, verification } = await checkedTronProof({
      blockNumber: SOLIDIFIED - 5,
      success: true,
      transfers: [tronTransfer(ourTronAccount, usdt(25))],
    })
    expect(verification).toMatchObject({ status: 'unavailable', network: 'tron', amount_usd: null })
    expect(verification?.detail).toMatch(detail)
    expect(await queuedCheck(proof.id)).toMatchObject({ payload: { failures: 1 } })
    expect(await secondsUntilNextCheck(proof.id)).toBe(60)
    await runQueuedCheck(proof.id)
    expect(await secondsUntilNextCheck(proof.id)).toBe(120)
    expect(await proofStatus(proof.id)).toBe('pending')

    tron.setMode('normal')
    await runQueuedCheck(proof.id)
    expect(await storedVerification(proof.id)).toMatchObject({ status: 'confirmed' })
  })

  test('a key TronGrid refuses (401) leaves the proof unavailable with a message for the administrator', async () => {
    tron.setApiKey('another-key')
    const { verification } = await checkedTronProof(null)
    expect(verification).toMatchObject({
      status: 'unavailable',
      detail: "TronGrid refused this server's credentials (HTTP 401); an administrator must check the API key.",
    })
  })

  test('the retries stop after the last backoff step', async () => {
    tron.setMode('server_error')
    const { proof } = await checkedTronProof(null)
    for (let retry = 1; retry <= MAX_FAILURES; retry += 1) await runQueuedCheck(proof.id)
    expect(await queuedCheck(proof.id)).toBeUndefined()
    expect(await storedVerification(proof.id)).toMatchObject({ status: 'unavailable' })
  })
})

describe('ERC20 (Etherscan)', () => {
  test('a transfer 12 blocks deep is confirmed; one 4 blocks deep waits, then is confirmed', async () => {
    const deep = await checkedEthereumProof({
      blockNumber: LATEST - 11,
      success: true,
      transfers: [ethTransfer(ourEthereumAccount, usdt(25))],
    })
    expect(deep.verification).toMatchObject({
      status: 'confirmed',
      network: 'ethereum',
      amount_usd: '25.000000',
      to_address: `0x${ourEthereumAccount}`,
      confirmations: 12,
    })
    const sent = etherscan.requests.find((query) => query.get('txhash') === deep.txhash)
    expect(Object.fromEntries(sent ?? [])).toEqual({
      chainid: '1',
      module: 'proxy',
      action: 'eth_getTransactionReceipt',
      txhash: deep.txhash,
      apikey: etherscan.apiKey,
    })

    const shallow = await checkedEthereumProof({
      blockNumber: LATEST - 3,
      success: true,
      transfers: [ethTransfer(ourEthereumAccount, usdt(30))],
    })
    expect(shallow.verification).toMatchObject({ status: 'unconfirmed', confirmations: 4, amount_usd: '30.000000' })
    expect(await secondsUntilNextCheck(shallow.proof.id)).toBe(60)
    etherscan.setLatestBlock(LATEST + 8)
    await runQueuedCheck(shallow.proof.id)
    expect(await storedVerification(shallow.proof.id)).toMatchObject({ status: 'confirmed', confirmations: 12 })
  })

  test('a pending transaction is not_found until it is mined', async () => {
    const { proof, txhash, verification } = await checkedEthereumProof({
      blockNumber: null,
      success: true,
      transfers: [ethTransfer(ourEthereumAccount, usdt(25))],
    })
    expect(verification).toMatchObject({ status: 'not_found', network: 'ethereum' })
    etherscan.mine(txhash, LATEST - 20)
    await runQueuedCheck(proof.id)
    expect(await storedVerification(proof.id)).toMatchObject({ status: 'confirmed', confirmations: 21 })
  })

  test('a failed transaction, another wallet and an underpayment are mismatches', async () => {
    const failed = await checkedEthereumProof({ blockNumber: LATEST - 20, success: false, transfers: [] })
    expect(failed.verification).toMatchObject({
      status: 'mismatch',
      detail: 'The transaction failed on chain: status 0x0 (reverted)',
    })
    const stranger = randomAccount()
    const elsewhere = await checkedEthereumProof({
      blockNumber: LATEST - 20,
      success: true,
      transfers: [ethTransfer(stranger, usdt(25))],
    })
    expect(elsewhere.verification).toMatchObject({ status: 'mismatch', to_address: `0x${stranger}` })
    const short = await checkedEthereumProof({
      blockNumber: LATEST - 20,
      success: true,
      transfers: [ethTransfer(ourEthereumAccount, usdt(5))],
    })
    expect(short.verification).toMatchObject({
      status: 'mismatch',
      detail: 'Underpaid: 5.000000 USDT received, 25.000000 due',
    })
  })

  test('a key Etherscan refuses leaves the proof unavailable, and the key never shows', async () => {
    etherscan.setApiKey('ANOTHERKEY')
    const { verification } = await checkedEthereumProof(null)
    expect(verification).toMatchObject({
      status: 'unavailable',
      detail: 'Etherscan refused the request: Invalid API Key',
    })
    expect(verification?.detail).not.toContain(etherscan.apiKey)
  })

  test.each([
    ['Max rate limit reached', 'rate_limit', 'Etherscan refused the request: Max rate limit reached'],
    ['a challenge page instead of JSON', 'garbage', 'Etherscan answered something that is not JSON'],
    ['a timeout', 'slow', 'Etherscan did not answer within 0.5 s'],
  ] as const)('%s leaves the proof unavailable', async (_, mode, detail) => {
    etherscan.setMode(mode)
    const { proof, verification } = await checkedEthereumProof({
      blockNumber: LATEST - 20,
      success: true,
      transfers: [ethTransfer(ourEthereumAccount, usdt(25))],
    })
    expect(verification).toMatchObject({ status: 'unavailable', network: 'ethereum' })
    expect(verification?.detail).toContain(detail)
    expect(await queuedCheck(proof.id)).toMatchObject({ payload: { failures: 1 } })
    expect(await proofStatus(proof.id)).toBe('pending')
  })
})

describe('reviewers', () => {
  async function pendingProofs(token: string) {
    const response = await callRoute(pendingLoader, makeRequest('/api/image/pending-payment-proofs', { token }))
    expect(response.status).toBe(200)
    return (await response.json()) as { id: string; verification: Record<string, unknown> }[]
  }

  test('GET /api/image/pending-payment-proofs carries verification, confirmed proofs first', async () => {
    const admin = await createTestUser({ role: 'superadmin' })
    const { token } = await createTestUser()
    const paypal = await submitProof(token, { creditAmount: '100', paymentMethod: 'paypal_me', transactionId: 'PP-2' })
    const unchecked = await submitUsdtProof(token, 'usdt_erc20', ethereumTxhash())
    const { proof: confirmed } = await checkedTronProof({
      blockNumber: SOLIDIFIED - 1,
      success: true,
      transfers: [tronTransfer(ourTronAccount, usdt(25))],
    })

    const proofs = await pendingProofs(admin.token)
    const statuses = proofs.map((proof) => proof.verification.status)
    const firstUnconfirmed = statuses.findIndex((status) => status !== 'confirmed')
    expect(firstUnconfirmed).toBeGreaterThan(0)
    expect(statuses.slice(firstUnconfirmed)).not.toContain('confirmed')
    const position = (id: string) => proofs.findIndex((proof) => proof.id === id)
    // Submitted last, listed before the older proofs that are not confirmed.
    expect(position(confirmed.id)).toBeLessThan(Math.min(position(unchecked.id), position(paypal.body.proof.id)))
    expect(proofs[position(confirmed.id)].verification).toEqual({
      status: 'confirmed',
      network: 'tron',
      amountUsd: 25,
      toAddress: tronAddress(ourTronAccount),
      confirmations: 2,
      checkedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      detail: '25.000000 USDT received, final (2 confirmations)',
    })
    expect(proofs.find((proof) => proof.id === paypal.body.proof.id)?.verification).toEqual({
      status: 'manual',
      network: null,
      amountUsd: null,
      toAddress: null,
      confirmations: null,
      checkedAt: null,
      detail: 'PayPal payments are checked by hand',
    })
    expect(proofs.find((proof) => proof.id === unchecked.id)?.verification).toMatchObject({
      status: 'unavailable',
      network: 'ethereum',
      checkedAt: null,
      detail: 'Not checked on chain yet',
    })
  })

  test('"Check again" on /payment-review queues a fresh check; PayPal and reviewed proofs are refused', async () => {
    const admin = await createTestUser({ role: 'superadmin' })
    const { token } = await createTestUser()
    const { proof } = await checkedTronProof(null)
    expect(await storedVerification(proof.id)).toMatchObject({ status: 'not_found' })

    const recheck = (proofId: string) => {
      const body = new URLSearchParams({ intent: 'recheck', proofId })
      return callRoute(reviewPageAction, makeRequest('/payment-review', { method: 'POST', token: admin.token, body }))
    }
    const txid = (
      await getDb()
        .selectFrom('payment_proofs')
        .select('transaction_id')
        .where('id', '=', proof.id)
        .executeTakeFirstOrThrow()
    ).transaction_id
    tron.addTransaction(txid, {
      blockNumber: SOLIDIFIED - 3,
      success: true,
      transfers: [tronTransfer(ourTronAccount, usdt(25))],
    })
    const answer = await recheck(proof.id)
    expect(answer.status).toBe(200)
    expect((await answer.json()).message).toMatch(/fresh on-chain check has been queued/)
    expect(await secondsUntilNextCheck(proof.id)).toBeLessThanOrEqual(0)
    await runQueuedCheck(proof.id)

    const page = await callRoute(reviewPageLoader, makeRequest('/payment-review', { token: admin.token }))
    const { proofs } = await page.json()
    expect(proofs.find((shown: { id: string }) => shown.id === proof.id).verification.status).toBe('confirmed')

    const paypal = await submitProof(token, { creditAmount: '100', paymentMethod: 'paypal_me', transactionId: 'PP-3' })
    const refused = await recheck(paypal.body.proof.id)
    expect(refused.status).toBe(400)
    expect((await refused.json()).result.error['']).toEqual(['PayPal payments are checked by hand, not on chain'])

    const user = await createTestUser()
    const notAllowed = await callRoute(
      reviewPageAction,
      makeRequest('/payment-review', {
        method: 'POST',
        token: user.token,
        body: new URLSearchParams({ intent: 'recheck', proofId: proof.id }),
      }),
    )
    expect(notAllowed.status).toBe(403)
  })
})
