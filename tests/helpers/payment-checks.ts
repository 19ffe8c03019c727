import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { action as submitAction } from '#app/routes/api.image.submit-payment-proof.ts'
import { verificationJobKey } from '#app/models/payment-verification.server.ts'
import { getDb } from '#app/utils/db.server.ts'
import { verifyPayment } from '#worker/tasks/verify-payment.ts'
import { callRoute, makeRequest } from './app.ts'
import { jobHelpers } from './jobs.ts'

/** Submits a proof through POST /api/image/submit-payment-proof; answers status and body. */
export async function submitProof(token: string, fields: Record<string, string>) {
  const body = new FormData()
  for (const [name, value] of Object.entries(fields)) body.append(name, value)
  const response = await callRoute(
    submitAction,
    makeRequest('/api/image/submit-payment-proof', { method: 'POST', token, body }),
  )
  return { status: response.status, body: await response.json() }
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
