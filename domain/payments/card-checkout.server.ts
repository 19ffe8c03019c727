/**
 * Paying for credits by card: a Stripe Checkout Session for the chosen amount (decision 0041).
 * The price is the one of payment-rules.ts; the session names the user and the credits, and its
 * success page is /credit-history, which confirms the session at once (confirmCardCheckout) in
 * case the webhook (card-events.server.ts) is late. Nothing is recorded until Stripe has answered
 * with a session, so a Stripe that fails or cannot be reached leaves no trace but a 503.
 */
import { randomUUID } from 'node:crypto'
import type Stripe from 'stripe'
import type { CardCheckoutStatus, User } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { publicOrigin } from '#platform/public-url.server.ts'
import { RETRY_AFTER_SECONDS } from '#platform/service-unavailable.server.ts'
import { getStripe } from '#platform/stripe.server.ts'
import { bannedMessage } from '#domain/accounts/account.server.ts'
import { forbidden, HttpError } from '#domain/http-error.server.ts'
import { fulfilCheckout } from '#domain/payments/card-fulfilment.server.ts'
import { priceCents } from '#domain/payments/payment-rules.ts'

const CARD_UNAVAILABLE_MESSAGE = 'Card payments are unavailable right now, please try again or choose another method'

/** The Stripe client, or a 404 when card payments are not configured. */
export function requireStripe(): Stripe {
  const stripe = getStripe()
  if (!stripe) throw new HttpError(404, 'Card payments are not offered here')
  return stripe
}

/** Creates the Checkout Session for `creditAmount` credits (already validated) and answers its URL. */
export async function createCardCheckout(db: DB, user: Pick<User, 'id' | 'is_banned'>, creditAmount: number) {
  const stripe = requireStripe()
  if (user.is_banned) throw forbidden(bannedMessage)
  const env = getEnv()
  const origin = publicOrigin(env)
  const amountCents = priceCents(creditAmount)
  let session: Stripe.Checkout.Session
  try {
    session = await stripe.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [
          {
            price_data: {
              currency: env.STRIPE_CURRENCY,
              unit_amount: amountCents,
              product_data: { name: `${creditAmount} Pawtrait credits` },
            },
            quantity: 1,
          },
        ],
        client_reference_id: user.id,
        metadata: { userId: user.id, credits: String(creditAmount) },
        // Stripe puts the session's id in place of the placeholder when it sends the buyer back.
        success_url: `${origin}/credit-history?session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${origin}/purchase-credits`,
      },
      // The client's retry of this call reuses the key, so it cannot make a second session.
      { idempotencyKey: `pawtrait-checkout-${randomUUID()}` },
    )
  } catch (error) {
    getMetrics().cardCheckouts.inc({ outcome: 'unavailable' })
    throw cardsUnavailable(error)
  }
  if (!session.url) {
    getMetrics().cardCheckouts.inc({ outcome: 'unavailable' })
    throw cardsUnavailable(new Error(`Stripe answered session ${session.id} without a url`))
  }
  await db
    .insertInto('card_checkouts')
    .values({
      session_id: session.id,
      user_id: user.id,
      credit_amount: creditAmount,
      amount_cents: amountCents,
      currency: env.STRIPE_CURRENCY,
    })
    .execute()
  getMetrics().cardCheckouts.inc({ outcome: 'created' })
  getLogger().info({ sessionId: session.id, userId: user.id, credits: creditAmount }, 'card checkout created')
  return { url: session.url, sessionId: session.id }
}

/**
 * A failed call to Stripe as the buyer sees it: a 503 with Retry-After. Refusals that say our
 * configuration is wrong (a bad key, a parameter Stripe refuses) are logged as errors: only the
 * operator can fix those.
 */
function cardsUnavailable(error: unknown) {
  const stripeError = error as { type?: string; statusCode?: number; message?: string }
  const transient = ['StripeConnectionError', 'StripeAPIError', 'StripeRateLimitError'].includes(stripeError.type ?? '')
  getLogger()[transient ? 'warn' : 'error'](
    { type: stripeError.type, status: stripeError.statusCode, reason: stripeError.message },
    'Stripe could not create a Checkout Session; answered 503',
  )
  return new HttpError(503, CARD_UNAVAILABLE_MESSAGE, { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } })
}

export type CardCheckoutNotice = { status: CardCheckoutStatus; credits: number }

/**
 * The success page's check of the buyer's own session: when it is not credited yet, Stripe is
 * asked and a paid session fulfilled now (the webhook may come later; fulfilment is once either
 * way). Answers what the page tells the buyer, or null for a session that is not theirs. Stripe
 * being away is no error here: the webhook will credit the payment.
 */
export async function confirmCardCheckout(
  db: DB,
  userId: string,
  sessionId: string,
): Promise<CardCheckoutNotice | null> {
  const stripe = getStripe()
  const checkout = await db
    .selectFrom('card_checkouts')
    .select(['status', 'credit_amount'])
    .where('session_id', '=', sessionId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  if (!checkout || !stripe) return null
  if (checkout.status !== 'open' && checkout.status !== 'processing') {
    return { status: checkout.status, credits: checkout.credit_amount }
  }
  try {
    const session = await stripe.checkout.sessions.retrieve(sessionId)
    if (session.payment_status === 'paid') {
      const outcome = await fulfilCheckout(db, session)
      if (outcome === 'credited' || outcome === 'already_credited') {
        return { status: 'paid', credits: checkout.credit_amount }
      }
    }
  } catch (error) {
    getLogger().warn({ err: error, sessionId }, 'could not confirm a card checkout with Stripe; the webhook will')
  }
  return { status: checkout.status, credits: checkout.credit_amount }
}
