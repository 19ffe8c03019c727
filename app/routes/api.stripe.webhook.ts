import { json } from '@remix-run/node'
import { apiHandler, readBodyBytes } from '#app/utils/api.server.ts'
import { handleStripeEvent, verifyStripeEvent, WEBHOOK_MAX_BYTES } from '#domain/payments/card-events.server.ts'
import { getDb } from '#platform/db.server.ts'

/**
 * Stripe's webhook endpoint (decision 0041): the raw body, verified by its signature, then applied.
 * 400 for a body whose signature does not hold, 413 past 1 MB; an event we cannot place is still
 * a 200, and a database away a 503 that Stripe retries.
 */
export const action = apiHandler(async ({ request }) => {
  const body = await readBodyBytes(request, WEBHOOK_MAX_BYTES)
  const event = verifyStripeEvent(body, request.headers.get('stripe-signature'))
  await handleStripeEvent(getDb(), event)
  return json({ received: true })
})
