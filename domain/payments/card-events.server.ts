/**
 * Stripe's webhook events about card payments (POST /api/stripe/webhook; decision 0041). The
 * signature is checked by the official library over the raw body, within Stripe's 5-minute
 * tolerance; then each event type has one handler, and every handler is safe to run again (a
 * replay, parallel deliveries, the success page racing). An event the app cannot place (another
 * shop's session on the same account, a deleted buyer) is logged and acknowledged: answering an
 * error would only make Stripe send it again for days.
 */
import type Stripe from 'stripe'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { WEBHOOK_TOLERANCE_SECONDS } from '#platform/stripe.server.ts'
import { badRequest } from '#domain/http-error.server.ts'
import { requireStripe } from '#domain/payments/card-checkout.server.ts'
import {
  fulfilCheckout,
  markCheckoutExpired,
  markCheckoutFailed,
  markCheckoutProcessing,
} from '#domain/payments/card-fulfilment.server.ts'
import { applyDispute, applyRefund } from '#domain/payments/card-reversals.server.ts'

/** Stripe's events are a few kilobytes; anything this large is not one. */
export const WEBHOOK_MAX_BYTES = 1024 * 1024

/** The events to subscribe the endpoint to (README), each with its handler. */
const handlers = {
  'checkout.session.completed': (db, event) => {
    const session = event.data.object as Stripe.Checkout.Session
    if (session.mode !== 'payment') return Promise.resolve('ignored')
    // Delayed methods complete unpaid; their money comes with async_payment_succeeded.
    if (session.payment_status !== 'paid') return changed(markCheckoutProcessing(db, session))
    return fulfilCheckout(db, session)
  },
  'checkout.session.async_payment_succeeded': (db, event) =>
    fulfilCheckout(db, event.data.object as Stripe.Checkout.Session),
  'checkout.session.async_payment_failed': (db, event) =>
    changed(markCheckoutFailed(db, event.data.object as Stripe.Checkout.Session)),
  'checkout.session.expired': (db, event) =>
    changed(markCheckoutExpired(db, event.data.object as Stripe.Checkout.Session)),
  'charge.refunded': (db, event) => applyRefund(db, event, event.data.object as Stripe.Charge),
  'charge.dispute.created': (db, event) => applyDispute(db, event, event.data.object as Stripe.Dispute),
} satisfies Record<string, (db: DB, event: Stripe.Event) => Promise<string>>

export const SUBSCRIBED_EVENTS = Object.keys(handlers)

const changed = async (update: Promise<boolean>) => ((await update) ? 'recorded' : 'unchanged')

/** The verified event of a delivery; a 400 (and nothing else done) when the signature does not hold. */
export function verifyStripeEvent(rawBody: Buffer, signature: string | null): Stripe.Event {
  const stripe = requireStripe()
  try {
    if (!signature) throw new Error('no Stripe-Signature header')
    return stripe.webhooks.constructEvent(
      rawBody,
      signature,
      getEnv().STRIPE_WEBHOOK_SECRET ?? '',
      WEBHOOK_TOLERANCE_SECONDS,
    )
  } catch (error) {
    getMetrics().stripeWebhooks.inc({ type: 'unverified', outcome: 'refused' })
    getLogger().warn({ reason: (error as Error).message }, 'Stripe webhook refused: its signature does not verify')
    throw badRequest(
      signature
        ? 'The Stripe-Signature header does not verify for this body (wrong secret, altered body or too old)'
        : 'The Stripe-Signature header is missing',
    )
  }
}

/** Applies a verified event; answers what came of it (for the log and the metrics). */
export async function handleStripeEvent(db: DB, event: Stripe.Event): Promise<string> {
  const handler = (handlers as Partial<Record<string, (db: DB, event: Stripe.Event) => Promise<string>>>)[event.type]
  const outcome = handler ? await handler(db, event) : 'ignored'
  getMetrics().stripeWebhooks.inc({ type: handler ? event.type : 'other', outcome })
  getLogger().info({ eventId: event.id, type: event.type, outcome }, 'Stripe event')
  return outcome
}
