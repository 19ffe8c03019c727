/**
 * Money that goes back on a card payment: a refund (whole or partial) or a dispute takes back the
 * payment's credits that are still unspent, never below zero (decision 0041). A charge.refunded
 * event carries the charge's refunded total so far, so each refund covers its share of the credits
 * (rounded up) minus what earlier ones covered; a dispute covers the rest. card_checkouts keeps
 * that total (reversed_credits), and card_payment_events the event's id, claimed in the same
 * transaction: a replayed event, or two deliveries at once, apply once.
 */
import type Stripe from 'stripe'
import type { CardCheckout } from '#platform/db-schema.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import { queueEmail } from '#platform/email.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { takeBackCredits } from '#domain/credits/credits.server.ts'
import { formatMoney } from '#domain/payments/payment-rules.ts'

export type ReversalOutcome = 'applied' | 'nothing_due' | 'duplicate' | 'unknown_payment'

type EventFacts = Pick<Stripe.Event, 'id' | 'type'>
type Intent = string | { id: string } | null

const intentId = (intent: Intent) => (typeof intent === 'string' ? intent : (intent?.id ?? null))

/** The credits a refund of `refunded` out of `total` (minor units) covers: its share, rounded up. */
export function creditsCoveredByRefund(creditAmount: number, refunded: number, total: number) {
  if (total <= 0) return creditAmount
  return Math.min(creditAmount, Math.ceil((creditAmount * refunded) / total))
}

const spentNote = (due: number, taken: number) => (taken < due ? ` (${due - taken} already spent)` : '')

export function applyRefund(
  db: DB,
  event: EventFacts,
  charge: Pick<Stripe.Charge, 'payment_intent' | 'amount' | 'amount_refunded' | 'currency'>,
) {
  return reverse(db, event, intentId(charge.payment_intent), {
    covered: (checkout) => creditsCoveredByRefund(checkout.credit_amount, charge.amount_refunded, charge.amount),
    describe: (due, taken) =>
      `Card payment refunded (${formatMoney(charge.amount_refunded, charge.currency)} of ${formatMoney(charge.amount, charge.currency)}): ${taken} credits taken back${spentNote(due, taken)}`,
  })
}

export function applyDispute(
  db: DB,
  event: EventFacts,
  dispute: Pick<Stripe.Dispute, 'id' | 'payment_intent' | 'amount' | 'currency' | 'reason' | 'evidence_details'>,
) {
  return reverse(db, event, intentId(dispute.payment_intent), {
    covered: (checkout) => checkout.credit_amount,
    describe: (due, taken) => `Card payment disputed: ${taken} credits taken back${spentNote(due, taken)}`,
    // The owner must answer a dispute on Stripe's dashboard, whatever was left to take back.
    after: (tx, checkout, taken) => tellOwnerOfDispute(tx, checkout, dispute, taken),
  })
}

interface Plan {
  /** How many of the payment's credits the event's money covers in all (earlier events included). */
  covered: (checkout: CardCheckout) => number
  describe: (due: number, taken: number) => string
  after?: (tx: Tx, checkout: CardCheckout, taken: number) => Promise<void>
}

async function reverse(db: DB, event: EventFacts, paymentIntent: string | null, plan: Plan): Promise<ReversalOutcome> {
  const outcome = await db.transaction().execute(async (tx) => {
    const claimed = await tx
      .insertInto('card_payment_events')
      .values({ event_id: event.id, type: event.type })
      .onConflict((conflict) => conflict.column('event_id').doNothing())
      .returning('event_id')
      .executeTakeFirst()
    if (!claimed) return 'duplicate'
    const checkout = paymentIntent
      ? await tx
          .selectFrom('card_checkouts')
          .selectAll()
          .where('payment_intent', '=', paymentIntent)
          .where('status', '=', 'paid')
          .forUpdate()
          .executeTakeFirst()
      : undefined
    if (!checkout?.user_id) return 'unknown_payment'
    const userId = checkout.user_id
    const target = Math.max(checkout.reversed_credits, Math.min(checkout.credit_amount, plan.covered(checkout)))
    const due = target - checkout.reversed_credits
    let taken = 0
    if (due > 0) {
      taken = await takeBackCredits(tx, {
        userId,
        upTo: due,
        paymentProofId: checkout.payment_proof_id,
        describe: (taken) => plan.describe(due, taken),
      })
      await tx
        .updateTable('card_checkouts')
        .set({ reversed_credits: target, updated_at: new Date() })
        .where('session_id', '=', checkout.session_id)
        .execute()
    }
    await plan.after?.(tx, checkout, taken)
    return due > 0 ? 'applied' : 'nothing_due'
  })
  const log = getLogger()
  if (outcome === 'unknown_payment')
    log.warn({ eventId: event.id, paymentIntent }, 'Stripe event for no payment of ours')
  else log.info({ eventId: event.id, type: event.type, outcome }, 'card payment reversal')
  return outcome
}

async function tellOwnerOfDispute(
  tx: Tx,
  checkout: CardCheckout,
  dispute: Pick<Stripe.Dispute, 'id' | 'amount' | 'currency' | 'reason' | 'evidence_details'>,
  taken: number,
) {
  const owner = getEnv().OWNER_EMAIL
  if (!owner) {
    getLogger().warn({ disputeId: dispute.id }, 'a card payment was disputed and OWNER_EMAIL is not set to be told')
    return
  }
  const buyer = await tx.selectFrom('users').select(['email']).where('id', '=', checkout.user_id!).executeTakeFirst()
  const dueBy = dispute.evidence_details?.due_by
  await queueEmail(tx, {
    to: owner,
    subject: `A Pawtrait card payment was disputed (${formatMoney(dispute.amount, dispute.currency)})`,
    text: [
      `A card payment was disputed on Stripe (dispute ${dispute.id}, reason: ${dispute.reason}).`,
      '',
      `Buyer: ${buyer?.email ?? 'unknown'}`,
      `Payment: ${formatMoney(checkout.amount_cents, checkout.currency)} for ${checkout.credit_amount} credits (Checkout Session ${checkout.session_id})`,
      `Credits taken back now: ${taken}`,
      '',
      dueBy
        ? `Answer it on Stripe's dashboard before ${new Date(dueBy * 1000).toISOString()}.`
        : "Answer it on Stripe's dashboard.",
    ].join('\n'),
  })
}
