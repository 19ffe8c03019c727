import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { verificationJobKey } from '#domain/payments/payment-verification.server.ts'
import { getDb } from '#platform/db.server.ts'
import { verifyPayment } from '#worker/jobs/verify-payment.ts'
import { randomAccount, tronAddress } from '../fakes/chain-fixtures.ts'
import { startEtherscanFake } from '../fakes/etherscan.ts'
import { startTronGridFake } from '../fakes/trongrid.ts'
import { jobHelpers } from './jobs.ts'
import { submitProof } from './payments.ts'

/**
 * Starts the TronGrid and Etherscan fakes and points the app at them, with our wallets on both
 * networks. Call at the top of a test file: getEnv() reads the variables on first use (the worker
 * process a test starts inherits them).
 */
export async function startChainFakes(options: { autoApprove: boolean }) {
  const tron = await startTronGridFake()
  const etherscan = await startEtherscanFake()
  const ourTronAccount = randomAccount()
  const ourEthereumAccount = randomAccount()
  process.env.USDT_TRC20_ADDRESS = tronAddress(ourTronAccount)
  // Upper case on purpose: Ethereum addresses compare case-insensitively.
  process.env.USDT_ERC20_ADDRESS = `0x${ourEthereumAccount.toUpperCase()}`
  process.env.TRONGRID_API_URL = tron.url
  process.env.TRONGRID_API_KEY = tron.apiKey
  process.env.ETHERSCAN_API_URL = etherscan.apiUrl
  process.env.ETHERSCAN_API_KEY = etherscan.apiKey
  process.env.CHAIN_API_TIMEOUT_MS = '500'
  process.env.PAYMENT_AUTO_APPROVE = options.autoApprove ? 'on' : 'off'
  return {
    tron,
    etherscan,
    ourTronAccount,
    ourEthereumAccount,
    close: () => Promise.all([tron.close(), etherscan.close()]),
  }
}

/** A proof for 500 credits (25 USD) with the transaction id, which must be accepted. */
export async function submitUsdtProof(token: string, method: 'usdt_trc20' | 'usdt_erc20', transactionId: string) {
  const result = await submitProof(token, { creditAmount: '500', paymentMethod: method, transactionId })
  expect(result.status).toBe(201)
  return result.body.proof as { id: string }
}

export const tronTxid = () => randomBytes(32).toString('hex')
export const ethereumTxhash = () => `0x${randomBytes(32).toString('hex')}`

/** The check queued for a proof (its payload and when it runs), or undefined when none is. */
export async function queuedCheck(proofId: string) {
  const { rows } = await sql<{ payload: { proofId: string; watchUntil: string; failures: number }; run_at: Date }>`
    SELECT payload, run_at FROM graphile_worker._private_jobs WHERE key = ${verificationJobKey(proofId)}
  `.execute(getDb())
  return rows[0]
}

/** Moves the end of the queued check's hour of watching to `ms` from now. */
export async function endWatchIn(proofId: string, ms: number) {
  await sql`
    UPDATE graphile_worker._private_jobs
    SET payload = jsonb_set(payload::jsonb, '{watchUntil}', to_jsonb(${new Date(Date.now() + ms).toISOString()}::text))::json
    WHERE key = ${verificationJobKey(proofId)}
  `.execute(getDb())
}

/**
 * Runs the proof's queued check in this process, as the worker would: the job leaves the queue
 * first, so whatever is queued afterwards is the next check the job scheduled.
 */
export async function runQueuedCheck(proofId: string) {
  const { rows } = await sql<{ payload: unknown }>`
    DELETE FROM graphile_worker._private_jobs WHERE key = ${verificationJobKey(proofId)} RETURNING payload
  `.execute(getDb())
  if (!rows[0]) throw new Error(`no check is queued for proof ${proofId}`)
  await verifyPayment(rows[0].payload, jobHelpers(1))
}

export async function storedVerification(proofId: string) {
  return getDb().selectFrom('payment_verifications').selectAll().where('proof_id', '=', proofId).executeTakeFirst()
}
