/**
 * A paid Checkout Session becomes credits exactly once (decision 0041). Both the webhook and the
 * success page call fulfilCheckout; the session's card_checkouts row is locked first, so however
 * many race, the first moves it to 'paid' and the others find it so. The payment is a
 * payment_proofs row of method 'card' approved by the system, like the proofs a reviewer approves:
 * the credit history, /payment-review, the analytics, the referral reward and the data export see
 * it as they see those (its unique index on (method, transaction id) backs the lock).
 */
import type Stripe from 'stripe'
import type { CardCheckout } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { queueEmail } from '#platform/email.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { recordCreditPurchase, recordPayment } from '#domain/analytics/events.server.ts'
import { grantCredits } from '#domain/credits/credits.server.ts'
import { formatMoney } from '#domain/payments/payment-rules.ts'
import { payReferralOnPurchase } from '#domain/sharing/referrals.server.ts'

type SessionFacts = Pick<
  Stripe.Checkout.Session,
  'id' | 'payment_status' | 'payment_intent' | 'amount_total' | 'currency'
>

/** What became of a session Stripe says something about; anything but `credited` changed nothing. */
export type FulfilmentOutcome =
  'credited' | 'already_credited' | 'unpaid' | 'unknown_session' | 'unknown_user' | 'amount_mismatch'

const intentId = (session: Pick<SessionFacts, 'payment_intent'>) =>
  typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? null)

/** Credits a paid session's buyer, once. */
export async function fulfilCheckout(db: DB, session: SessionFacts): Promise<FulfilmentOutcome> {
  if (session.payment_status !== 'paid') return 'unpaid'
  const result = await db.transaction().execute(async (tx) => {
    const checkout = await tx
      .selectFrom('card_checkouts')
      .selectAll()
      .where('session_id', '=', session.id)
      .forUpdate()
      .executeTakeFirst()
    if (!checkout) return { outcome: 'unknown_session' as const }
    if (checkout.status === 'paid') return { outcome: 'already_credited' as const }
    if (!checkout.user_id) return { outcome: 'unknown_user' as const }
    // The credits are ours to say (the row), but only for the price we asked.
    if (session.amount_total !== checkout.amount_cents || session.currency !== checkout.currency) {
      return { outcome: 'amount_mismatch' as const }
    }
    const proof = await tx
      .insertInto('payment_proofs')
      .values({
        user_id: checkout.user_id,
        payment_method: 'card',
        transaction_id: session.id,
        credit_amount: checkout.credit_amount,
        amount_cents: checkout.amount_cents,
        screenshot_key: null,
        status: 'approved',
        reviewer_id: null,
        review_reason: null,
        reviewed_at: new Date(),
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    await tx
      .updateTable('card_checkouts')
      .set({ status: 'paid', payment_intent: intentId(session), payment_proof_id: proof.id, updated_at: new Date() })
      .where('session_id', '=', session.id)
      .execute()
    await grantCredits(tx, {
      userId: checkout.user_id,
      type: 'purchase',
      amount: checkout.credit_amount,
      description: `Card payment: ${checkout.credit_amount} credits`,
      paymentProofId: proof.id,
    })
    await payReferralOnPurchase(tx, checkout.user_id)
    return { outcome: 'credited' as const, proof: { ...proof, user_id: checkout.user_id } }
  })
  const log = getLogger()
  if (result.outcome === 'credited') {
    recordPayment(null, result.proof)
    recordCreditPurchase(result.proof)
    log.info({ sessionId: session.id, userId: result.proof.user_id }, 'card payment credited')
  } else if (result.outcome === 'amount_mismatch') {
    log.error(
      { sessionId: session.id, amount: session.amount_total, currency: session.currency },
      'a paid Checkout Session does not match the price asked; not credited',
    )
  } else if (result.outcome !== 'already_credited') {
    log.warn({ sessionId: session.id, outcome: result.outcome }, 'a paid Checkout Session could not be credited')
  }
  return result.outcome
}

/**
 * A session that completed without the money yet (a delayed method: bank debits): 'processing',
 * with its PaymentIntent, until async_payment_succeeded (fulfilCheckout) or _failed.
 */
export async function markCheckoutProcessing(db: DB, session: SessionFacts): Promise<boolean> {
  const updated = await db
    .updateTable('card_checkouts')
    .set({ status: 'processing', payment_intent: intentId(session), updated_at: new Date() })
    .where('session_id', '=', session.id)
    .where('status', '=', 'open')
    .executeTakeFirst()
  return updated.numUpdatedRows > 0n
}

/** A delayed payment that failed: recorded once, and the buyer told by email. */
export async function markCheckoutFailed(db: DB, session: SessionFacts): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const checkout = await tx
      .updateTable('card_checkouts')
      .set({ status: 'failed', payment_intent: intentId(session), updated_at: new Date() })
      .where('session_id', '=', session.id)
      .where('status', 'in', ['open', 'processing'])
      .returningAll()
      .executeTakeFirst()
    if (!checkout?.user_id) return Boolean(checkout)
    const buyer = await tx
      .selectFrom('users')
      .select(['email', 'name'])
      .where('id', '=', checkout.user_id)
      .executeTakeFirstOrThrow()
    await queueEmail(tx, paymentFailedEmail(checkout, buyer))
    return true
  })
}

/** A session left unpaid until Stripe expired it. */
export async function markCheckoutExpired(db: DB, session: SessionFacts): Promise<boolean> {
  const updated = await db
    .updateTable('card_checkouts')
    .set({ status: 'expired', updated_at: new Date() })
    .where('session_id', '=', session.id)
    .where('status', '=', 'open')
    .executeTakeFirst()
  return updated.numUpdatedRows > 0n
}

function paymentFailedEmail(checkout: CardCheckout, buyer: { email: string; name: string }) {
  return {
    to: buyer.email,
    subject: 'Your Pawtrait card payment did not go through',
    text: `Hi ${buyer.name},\n\nYour payment of ${formatMoney(checkout.amount_cents, checkout.currency)} for ${checkout.credit_amount} credits did not go through, so no credits were added and nothing was charged.\n\nYou can try again, or choose another payment method, on the Purchase Credits page.\n\nThe Pawtrait team`,
  }
}
