import { sql } from 'kysely'
import type { PaymentProof, ProofStatus, User } from '#platform/db-schema.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import { queueEmail } from '#platform/email.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { forbidden, HttpError, notFound } from '#domain/http-error.server.ts'
import { normalizeUploadedImage } from '#domain/media/images.server.ts'
import { getStorage, mediaKey } from '#platform/storage.server.ts'
import { SCREENSHOT_PREFIX, signedScreenshotUrl } from '#domain/payments/payment-screenshots.server.ts'
import { recordCreditPurchase, recordPayment } from '#domain/analytics/events.server.ts'
import { grantCredits } from '#domain/credits/credits.server.ts'
import { payReferralOnPurchase } from '#domain/sharing/referrals.server.ts'
import { formatUsd, paymentMethodLabels, priceCents, type ProofInput } from '#domain/payments/payment-rules.ts'
import {
  enqueueVerification,
  isCheckedOnChain,
  publicVerification,
  verificationColumns,
  type VerificationColumns,
} from '#domain/payments/payment-verification.server.ts'

type Owner = Pick<User, 'id' | 'name' | 'email'>
/** A proof whose account still exists (a deleted account's proofs have no owner: account-deletion.server.ts). */
export type ProofWithOwner = PaymentProof & { user_id: string; owner_name: string; owner_email: string }
export type PendingProof = ProofWithOwner & VerificationColumns

export const PROOF_SUBMITTED_MESSAGE =
  'Payment proof submitted successfully. It will be reviewed within 24 hours and the credits added once approved.'

/** Where users send money, from the environment (an empty string when not configured). */
export function paymentDestinations() {
  const env = getEnv()
  return { trc20: env.USDT_TRC20_ADDRESS, erc20: env.USDT_ERC20_ADDRESS, paypalMeUrl: env.PAYPAL_ME_URL }
}

/**
 * Records a pending proof; the price comes from the credit amount, the screenshot is sniffed and
 * re-encoded. `clientIp` (getClientAddress) locates the payment in the analytics.
 */
export async function submitPaymentProof(
  db: DB,
  owner: Owner,
  input: ProofInput,
  clientIp: string | null,
): Promise<ProofWithOwner> {
  const screenshot = input.screenshot ? await prepareScreenshot(input.screenshot) : null
  try {
    const proof = await db.transaction().execute(async (tx) => {
      const proof = await tx
        .insertInto('payment_proofs')
        .values({
          user_id: owner.id,
          payment_method: input.paymentMethod,
          transaction_id: input.transactionId,
          credit_amount: input.creditAmount,
          amount_cents: priceCents(input.creditAmount),
          note: input.paymentNote,
          screenshot_key: screenshot?.key ?? null,
          reviewer_id: null,
          review_reason: null,
          reviewed_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow()
      if (isCheckedOnChain(proof.payment_method)) await enqueueVerification(tx, proof.id)
      // Stored before commit: a refused duplicate stores nothing, a failed upload leaves no row.
      if (screenshot) await getStorage().put(screenshot.key, screenshot.bytes, screenshot.mimeType)
      return proof
    })
    recordPayment(clientIp, proof)
    return { ...proof, user_id: owner.id, owner_name: owner.name, owner_email: owner.email }
  } catch (error) {
    if (isUniqueViolation(error, 'payment_proofs_transaction_key')) {
      throw new HttpError(409, 'This transaction ID has already been submitted for this payment method')
    }
    throw error
  }
}

async function prepareScreenshot(file: File) {
  const image = await normalizeUploadedImage(Buffer.from(await file.arrayBuffer()))
  return { ...image, key: mediaKey(SCREENSHOT_PREFIX, image.bytes, image.ext) }
}

function isUniqueViolation(error: unknown, constraint: string) {
  const pgError = error as { code?: string; constraint?: string }
  return pgError?.code === '23505' && pgError.constraint === constraint
}

function proofsWithOwner(db: DB | Tx) {
  return db
    .selectFrom('payment_proofs')
    .innerJoin('users', 'users.id', 'payment_proofs.user_id')
    .selectAll('payment_proofs')
    .select(['users.name as owner_name', 'users.email as owner_email'])
    .$narrowType<{ user_id: string }>()
}

/**
 * Proofs confirmed on chain first (they only need a glance), then oldest first: the queue is
 * worked through in the order people paid. Each carries its latest on-chain check.
 */
export function listPendingProofs(db: DB): Promise<PendingProof[]> {
  return proofsWithOwner(db)
    .leftJoin('payment_verifications', 'payment_verifications.proof_id', 'payment_proofs.id')
    .select(verificationColumns)
    .where('payment_proofs.status', '=', 'pending')
    .orderBy(sql`payment_verifications.status IS NOT DISTINCT FROM 'confirmed'`, 'desc')
    .orderBy('payment_proofs.created_at')
    .execute()
}

const REVIEWED_SHOWN = 50

/**
 * The latest reviewed payments, newest first, with who reviewed each: a reviewer's name, or null
 * for the system (a card payment, a proof confirmed on chain with PAYMENT_AUTO_APPROVE).
 */
export async function listReviewedProofs(db: DB) {
  const rows = await proofsWithOwner(db)
    .leftJoin('users as reviewers', 'reviewers.id', 'payment_proofs.reviewer_id')
    .select('reviewers.name as reviewer_name')
    .where('payment_proofs.status', '!=', 'pending')
    .orderBy('payment_proofs.reviewed_at', 'desc')
    .orderBy('payment_proofs.created_at', 'desc')
    .limit(REVIEWED_SHOWN)
    .execute()
  return rows.map((proof) => ({
    ...toPublicProof(proof),
    // A reviewer's account deleted since leaves the id without a name.
    reviewedBy: proof.reviewer_id === null ? null : (proof.reviewer_name ?? 'a deleted account'),
  }))
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

interface Review {
  proofId: string
  /** null: the system, approving a proof whose transfer was confirmed on chain (PAYMENT_AUTO_APPROVE). */
  reviewer: Pick<User, 'id'> | null
  approved: boolean
  reason?: string
}

/**
 * Approves or rejects a pending proof. Only the request whose conditional UPDATE flips the status
 * from pending grants the credits, so repeated or concurrent approvals credit exactly once; every
 * other one answers 409. Reviewers may not review their own proofs (four-eyes rule). A transaction
 * id is credited once across proofs: the payment_proofs_credited_once index refuses a second
 * approval of the same hash (409), whoever races for it.
 */
export async function reviewPaymentProof(db: DB, review: Review): Promise<ProofWithOwner> {
  if (!uuidPattern.test(review.proofId)) throw notFound('Payment proof not found')
  const reviewed = await db.transaction().execute(async (tx) => {
    const existing = await proofsWithOwner(tx).where('payment_proofs.id', '=', review.proofId).executeTakeFirst()
    if (!existing) throw notFound('Payment proof not found')
    if (existing.user_id === review.reviewer?.id) throw forbidden('You cannot review your own payment proof')

    const proof = await tx
      .updateTable('payment_proofs')
      .set({
        status: review.approved ? 'approved' : 'rejected',
        reviewer_id: review.reviewer?.id ?? null,
        review_reason: review.reason || null,
        reviewed_at: new Date(),
      })
      .where('id', '=', review.proofId)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst()
      .catch((error: unknown) => {
        if (isUniqueViolation(error, 'payment_proofs_credited_once')) {
          throw new HttpError(409, 'This transaction ID has already been credited on another payment proof')
        }
        throw error
      })
    if (!proof) throw new HttpError(409, 'This payment proof has already been reviewed')

    if (review.approved) {
      await grantCredits(tx, {
        userId: existing.user_id,
        type: 'purchase',
        amount: proof.credit_amount,
        description: `Purchased ${proof.credit_amount} credits (${paymentMethodLabels[proof.payment_method]})`,
        paymentProofId: proof.id,
      })
      await payReferralOnPurchase(tx, existing.user_id)
    }
    await queueEmail(tx, reviewEmail(proof, existing.owner_email, existing.owner_name))
    return { ...proof, user_id: existing.user_id, owner_name: existing.owner_name, owner_email: existing.owner_email }
  })
  if (reviewed.status === 'approved') recordCreditPurchase(reviewed)
  return reviewed
}

function reviewEmail(proof: PaymentProof, to: string, name: string) {
  const paid = `your payment of ${formatUsd(proof.amount_cents)} (transaction ID ${proof.transaction_id})`
  if (proof.status === 'approved') {
    return {
      to,
      subject: 'Your Pawtrait payment was approved',
      text: `Hi ${name},\n\nWe have approved ${paid}: ${proof.credit_amount} credits were added to your account.\n\nThank you for using Pawtrait!`,
    }
  }
  return {
    to,
    subject: 'Your Pawtrait payment proof was rejected',
    text: `Hi ${name},\n\nWe could not approve ${paid}.\n\nReason: ${proof.review_reason}\n\nIf you think this is a mistake, please reply to this email.`,
  }
}

/**
 * A payment proof as the API answers it (spec section 3), with its owner in userId. Only for the
 * owner and super administrators: its `screenshotUrl` is a short-lived signed URL (decision 0027).
 */
export function toPublicProof(proof: ProofWithOwner) {
  return {
    _id: proof.id,
    id: proof.id,
    userId: { _id: proof.user_id, name: proof.owner_name, email: proof.owner_email },
    paymentMethod: proof.payment_method,
    transactionId: proof.transaction_id,
    creditAmount: proof.credit_amount,
    amount: proof.amount_cents / 100,
    paymentNote: proof.note,
    screenshotUrl: proof.screenshot_key ? signedScreenshotUrl(proof.id) : null,
    status: proof.status,
    reviewReason: proof.review_reason,
    createdAt: proof.created_at.toISOString(),
    reviewedAt: proof.reviewed_at ? proof.reviewed_at.toISOString() : null,
  }
}

/** A pending proof for reviewers: the proof and its on-chain `verification`. */
export function toPendingProof(proof: PendingProof) {
  return { ...toPublicProof(proof), verification: publicVerification(proof) }
}

export type PublicPendingProof = ReturnType<typeof toPendingProof>

/** Why a deleted account's pending proof is closed as rejected. */
const ACCOUNT_DELETED_REASON = 'The account was deleted before the review'

/**
 * Locks the user's proofs, before the user's row: the order reviewPaymentProof takes them in (the
 * proof, then the owner's balance), so a deletion and a review under way wait for each other
 * instead of deadlocking.
 */
export async function lockProofsOf(tx: Tx, userId: string) {
  await tx.selectFrom('payment_proofs').select('id').where('user_id', '=', userId).forUpdate().execute()
}

/**
 * A deleted account's proofs stay for accounting, anonymised (decision 0027): the payment method,
 * transaction id, amounts, status, review and dates remain; the owner, the note (free text) and the
 * screenshot go, and a pending one is closed as rejected (nobody is left to credit). Answers the
 * screenshot keys no other proof uses, for deletion from storage once this transaction commits.
 */
export async function anonymiseProofsOf(tx: Tx, userId: string): Promise<string[]> {
  const proofs = await tx
    .selectFrom('payment_proofs')
    .select('screenshot_key')
    .where('user_id', '=', userId)
    .forUpdate()
    .execute()
  await tx
    .updateTable('payment_proofs')
    .set({
      user_id: null,
      note: '',
      screenshot_key: null,
      status: sql<ProofStatus>`CASE WHEN status = 'pending' THEN 'rejected' ELSE status END`,
      review_reason: sql<
        string | null
      >`CASE WHEN status = 'pending' THEN ${ACCOUNT_DELETED_REASON} ELSE review_reason END`,
      reviewed_at: sql<Date>`coalesce(reviewed_at, now())`,
    })
    .where('user_id', '=', userId)
    .execute()
  const keys = [...new Set(proofs.flatMap((proof) => (proof.screenshot_key ? [proof.screenshot_key] : [])))]
  if (keys.length === 0) return []
  // Keys are content hashes: the same picture sent by someone else stays for their proof.
  const shared = await tx
    .selectFrom('payment_proofs')
    .select('screenshot_key')
    .where('screenshot_key', 'in', keys)
    .execute()
  return keys.filter((key) => !shared.some((proof) => proof.screenshot_key === key))
}
