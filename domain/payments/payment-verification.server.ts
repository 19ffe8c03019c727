import type { PaymentMethod, PaymentVerification } from '#platform/db-schema.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import { badRequest, HttpError, notFound } from '#domain/http-error.server.ts'
import { enqueueJob } from '#platform/jobs.server.ts'
import type { VerificationResult } from '#domain/payments/chain-transfer.ts'

/**
 * The stored result of a USDT proof's on-chain check (payment_verifications, one row a proof) and
 * how reviewers see it: `verification` in GET /api/image/pending-payment-proofs and the badge on
 * /payment-review. The check itself runs in the worker (worker/jobs/verify-payment.ts).
 */

/** A check re-runs every minute while the transfer is not found or not final, for this long. */
const WATCH_MS = 60 * 60_000

export function isCheckedOnChain(method: PaymentMethod) {
  return method === 'usdt_trc20' || method === 'usdt_erc20'
}

/**
 * Schedules a fresh check of a proof, watched for the next hour. The job key makes a new request
 * replace a check already waiting, so a proof never has two queued checks.
 */
export async function enqueueVerification(db: DB | Tx, proofId: string) {
  await enqueueJob(
    db,
    'verify_payment',
    { proofId, watchUntil: new Date(Date.now() + WATCH_MS).toISOString(), failures: 0 },
    { jobKey: verificationJobKey(proofId) },
  )
}

/** A reviewer's "check again": a fresh check, now, of a pending USDT proof. */
export async function requestVerification(db: DB, proofId: string) {
  const proof = await db
    .selectFrom('payment_proofs')
    .select(['payment_method', 'status'])
    .where('id', '=', proofId)
    .executeTakeFirst()
  if (!proof) throw notFound('Payment proof not found')
  if (proof.status !== 'pending') throw new HttpError(409, 'This payment proof has already been reviewed')
  if (!isCheckedOnChain(proof.payment_method)) throw badRequest('PayPal payments are checked by hand, not on chain')
  await enqueueVerification(db, proofId)
}

export const verificationJobKey = (proofId: string) => `verify_payment:${proofId}`

export async function saveVerification(db: DB | Tx, proofId: string, result: VerificationResult) {
  const row = {
    status: result.status,
    network: result.network,
    amount_usd: result.amountUsd,
    to_address: result.toAddress,
    confirmations: result.confirmations,
    detail: result.detail,
    checked_at: new Date(),
  }
  await db
    .insertInto('payment_verifications')
    .values({ proof_id: proofId, ...row })
    .onConflict((conflict) => conflict.column('proof_id').doUpdateSet(row))
    .execute()
}

/** The verification columns as listPendingProofs selects them (null when never checked). */
export type VerificationColumns = {
  [Key in keyof Omit<PaymentVerification, 'proof_id'> as `verification_${Key}`]: PaymentVerification[Key] | null
}

export const verificationColumns = [
  'payment_verifications.status as verification_status',
  'payment_verifications.network as verification_network',
  'payment_verifications.amount_usd as verification_amount_usd',
  'payment_verifications.to_address as verification_to_address',
  'payment_verifications.confirmations as verification_confirmations',
  'payment_verifications.detail as verification_detail',
  'payment_verifications.checked_at as verification_checked_at',
] as const

/**
 * `verification` as the API answers it. PayPal proofs are `manual`; a USDT proof whose first check
 * has not run yet is `unavailable` with checkedAt null.
 */
export function publicVerification(proof: { payment_method: PaymentMethod } & VerificationColumns) {
  if (!isCheckedOnChain(proof.payment_method)) {
    return { ...emptyVerification, status: 'manual' as const, detail: 'PayPal payments are checked by hand' }
  }
  if (!proof.verification_status) {
    return {
      ...emptyVerification,
      status: 'unavailable' as const,
      network: proof.payment_method === 'usdt_trc20' ? ('tron' as const) : ('ethereum' as const),
      detail: 'Not checked on chain yet',
    }
  }
  return {
    status: proof.verification_status,
    network: proof.verification_network,
    amountUsd: proof.verification_amount_usd === null ? null : Number(proof.verification_amount_usd),
    toAddress: proof.verification_to_address,
    confirmations: proof.verification_confirmations,
    checkedAt: proof.verification_checked_at?.toISOString() ?? null,
    detail: proof.verification_detail ?? '',
  }
}

const emptyVerification = { network: null, amountUsd: null, toAddress: null, confirmations: null, checkedAt: null }

export type PublicVerification = ReturnType<typeof publicVerification>
