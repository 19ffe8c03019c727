import { sql } from 'kysely'
import { action as reviewAction } from '#app/routes/api.image.review-payment-proof.$id.ts'
import { ON_CHAIN_APPROVAL_NOTE } from '#domain/payments/payment-check.server.ts'
import { getDb } from '#platform/db.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { queuedJobs } from '#tests/helpers/jobs.ts'
import {
  ethereumTxhash,
  queuedCheck,
  runQueuedCheck,
  startChainFakes,
  storedVerification,
  submitUsdtProof,
  tronTxid,
} from '#tests/helpers/payment-checks.ts'
import { creditsOf, proofStatus } from '#tests/helpers/payments.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'
import { ETHEREUM_USDT, randomAccount, TRON_USDT } from '#tests/fakes/chain-fixtures.ts'

// PAYMENT_AUTO_APPROVE=on: a proof confirmed on chain is approved by the system through the manual
// approval path, and no transaction is ever credited twice.
const { tron, etherscan, ourTronAccount, ourEthereumAccount, close } = await startChainFakes({ autoApprove: true })
afterAll(close)

const SOLIDIFIED = 66_000_000
const LATEST = 21_000_000
const FULL_PRICE = 25_000_000n // 500 credits = 25 USD, in USDT base units

beforeEach(() => {
  tron.setMode('normal')
  tron.setSolidifiedBlock(SOLIDIFIED)
  etherscan.setMode('normal')
})

function paidOnTron(txid: string, blockNumber = SOLIDIFIED - 10) {
  tron.addTransaction(txid, {
    blockNumber,
    success: true,
    transfers: [{ token: TRON_USDT.account, from: randomAccount(), to: ourTronAccount, units: FULL_PRICE }],
  })
}

function paidOnEthereum(txhash: string) {
  etherscan.addTransaction(txhash, {
    blockNumber: LATEST - 50,
    success: true,
    transfers: [{ token: ETHEREUM_USDT.account, from: randomAccount(), to: ourEthereumAccount, units: FULL_PRICE }],
  })
}

async function buyer() {
  return createTestUser({ credits: 3 })
}

async function purchasesOf(userId: string) {
  return getDb()
    .selectFrom('credit_transactions')
    .select(['amount', 'payment_proof_id', 'description'])
    .where('user_id', '=', userId)
    .where('type', '=', 'purchase')
    .execute()
}

async function approvalEmails(to: string) {
  const emails = await queuedJobs<{ to: string; subject: string }>('send_email')
  return emails.filter((email) => email.to === to && /approved/.test(email.subject))
}

function manualApproval(token: string, proofId: string) {
  return callRoute(
    reviewAction,
    makeRequest(`/api/image/review-payment-proof/${proofId}`, { method: 'POST', token, json: { approved: true } }),
    { id: proofId },
  )
}

test('a confirmed proof is approved once by the system: ledger entry, email and an on-chain review note', async () => {
  const { user, token } = await buyer()
  const txid = tronTxid()
  paidOnTron(txid)
  const proof = await submitUsdtProof(token, 'usdt_trc20', txid)
  await runQueuedCheck(proof.id)

  const row = await getDb()
    .selectFrom('payment_proofs')
    .selectAll()
    .where('id', '=', proof.id)
    .executeTakeFirstOrThrow()
  expect(row).toMatchObject({ status: 'approved', reviewer_id: null })
  expect(row.review_reason).toBe(`${ON_CHAIN_APPROVAL_NOTE} (25.000000 USDT received, final (11 confirmations)).`)
  expect(await creditsOf(user.id)).toBe(503)
  expect(await purchasesOf(user.id)).toEqual([
    { amount: 500, payment_proof_id: proof.id, description: 'Purchased 500 credits (USDT (TRC20))' },
  ])
  expect(await approvalEmails(user.email)).toHaveLength(1)
  expect(await queuedCheck(proof.id)).toBeUndefined()

  // A retry of the job (or a reviewer's late "check again") finds the proof reviewed: nothing more.
  await sql`SELECT graphile_worker.add_job('verify_payment', ${JSON.stringify({ proofId: proof.id, watchUntil: new Date(Date.now() + 60_000).toISOString(), failures: 0 })}::json, job_key => ${`verify_payment:${proof.id}`})`.execute(
    getDb(),
  )
  await runQueuedCheck(proof.id)
  expect(await creditsOf(user.id)).toBe(503)
  expect(await purchasesOf(user.id)).toHaveLength(1)
  expect(await approvalEmails(user.email)).toHaveLength(1)
})

test('a transfer that is not final yet is approved only once it is final', async () => {
  const { user, token } = await buyer()
  const txid = tronTxid()
  paidOnTron(txid, SOLIDIFIED + 3)
  const proof = await submitUsdtProof(token, 'usdt_trc20', txid)
  await runQueuedCheck(proof.id)
  expect(await storedVerification(proof.id)).toMatchObject({ status: 'unconfirmed' })
  expect(await proofStatus(proof.id)).toBe('pending')
  expect(await creditsOf(user.id)).toBe(3)

  tron.setSolidifiedBlock(SOLIDIFIED + 3)
  await runQueuedCheck(proof.id)
  expect(await proofStatus(proof.id)).toBe('approved')
  expect(await creditsOf(user.id)).toBe(503)
})

test.each(['rate_limit', 'garbage', 'slow'] as const)('a chain outage (%s) never approves', async (mode) => {
  const { user, token } = await buyer()
  const txid = tronTxid()
  paidOnTron(txid)
  tron.setMode(mode)
  const proof = await submitUsdtProof(token, 'usdt_trc20', txid)
  await runQueuedCheck(proof.id)
  expect(await storedVerification(proof.id)).toMatchObject({ status: 'unavailable' })
  expect(await proofStatus(proof.id)).toBe('pending')
  expect(await purchasesOf(user.id)).toEqual([])
})

test('a manual and an automatic approval racing for one proof credit it once', async () => {
  const admin = await createTestUser({ role: 'superadmin' })
  for (let round = 0; round < 5; round += 1) {
    const { user, token } = await buyer()
    const txhash = ethereumTxhash()
    paidOnEthereum(txhash)
    const proof = await submitUsdtProof(token, 'usdt_erc20', txhash)
    const [manual] = await Promise.all([manualApproval(admin.token, proof.id), runQueuedCheck(proof.id)])
    expect([200, 409]).toContain(manual.status)
    expect(await proofStatus(proof.id)).toBe('approved')
    expect(await purchasesOf(user.id)).toHaveLength(1)
    expect(await creditsOf(user.id)).toBe(503)
    expect(await approvalEmails(user.email)).toHaveLength(1)
  }
})

test('one transaction id submitted by two users on two networks is credited once, whoever approves first', async () => {
  const admin = await createTestUser({ role: 'superadmin' })
  const first = await buyer()
  const second = await buyer()
  const hash = tronTxid()
  paidOnTron(hash)
  paidOnEthereum(`0x${hash}`)
  const tronProof = await submitUsdtProof(first.token, 'usdt_trc20', hash)
  const ethereumProof = await submitUsdtProof(second.token, 'usdt_erc20', `0x${hash.toUpperCase()}`)

  // The automatic approval of one proof races the manual approval of the other.
  const [manual] = await Promise.all([manualApproval(admin.token, ethereumProof.id), runQueuedCheck(tronProof.id)])
  const credited = [...(await purchasesOf(first.user.id)), ...(await purchasesOf(second.user.id))]
  expect(credited).toHaveLength(1)
  const statuses = [await proofStatus(tronProof.id), await proofStatus(ethereumProof.id)]
  expect(statuses.sort()).toEqual(['approved', 'pending'])
  if (manual.status === 409) {
    expect(await manual.json()).toEqual({
      message: 'This transaction ID has already been credited on another payment proof',
    })
  } else {
    expect(await storedVerification(tronProof.id)).toMatchObject({
      status: 'mismatch',
      detail: 'This transaction has already been credited on another payment proof',
    })
  }

  // The later check of the other proof does not credit it either, and says why.
  await runQueuedCheck(ethereumProof.id)
  expect([...(await purchasesOf(first.user.id)), ...(await purchasesOf(second.user.id))]).toHaveLength(1)
  const unpaid = (await proofStatus(tronProof.id)) === 'pending' ? tronProof : ethereumProof
  expect(await storedVerification(unpaid.id)).toMatchObject({
    status: 'mismatch',
    detail: 'This transaction has already been credited on another payment proof',
  })
})

test('the database itself refuses a second approval of a transaction id', async () => {
  const first = await buyer()
  const second = await buyer()
  const hash = tronTxid()
  const tronProof = await submitUsdtProof(first.token, 'usdt_trc20', hash)
  const ethereumProof = await submitUsdtProof(second.token, 'usdt_erc20', `0x${hash}`)
  await getDb().updateTable('payment_proofs').set({ status: 'approved' }).where('id', '=', tronProof.id).execute()
  await expect(
    getDb().updateTable('payment_proofs').set({ status: 'approved' }).where('id', '=', ethereumProof.id).execute(),
  ).rejects.toMatchObject({ code: '23505', constraint: 'payment_proofs_credited_once' })
})

test('the worker process checks a submitted proof and approves it within seconds', async () => {
  const { user, token } = await buyer()
  const txid = tronTxid()
  paidOnTron(txid)
  const worker = startWorker()
  try {
    await worker.ready()
    const proof = await submitUsdtProof(token, 'usdt_trc20', txid)
    await waitFor(async () => (await proofStatus(proof.id)) === 'approved', { timeout: 15_000 })
    expect(await creditsOf(user.id)).toBe(503)
    expect(await storedVerification(proof.id)).toMatchObject({ status: 'confirmed', network: 'tron' })
  } finally {
    await worker.stop()
  }
})
