import { action as checkoutAction } from '#app/routes/api.payment.checkout.ts'
import { getDb } from '#platform/db.server.ts'
import { type StripeDeliveryMode, startStripeFake } from '../fakes/stripe.ts'
import { callRoute, makeRequest } from './app.ts'
import { startWebServer } from './web-server.ts'

/**
 * Card payments against the Stripe fake (tests/fakes/stripe.ts). Call at the top of a test file:
 * getEnv() reads the variables on first use. The app's webhook endpoint is served over real HTTP
 * (web-server.ts) so that the fake's deliveries reach it as Stripe's would; each call to Stripe
 * waits 500 ms at most, so the outage tests are quick.
 */
export async function startCardPayments(options: { deliveryMode?: StripeDeliveryMode } = {}) {
  const stripe = await startStripeFake(options)
  Object.assign(process.env, stripe.env, { STRIPE_TIMEOUT_MS: '500' })
  const web = await startWebServer()
  const webhookUrl = `${web.origin}/api/stripe/webhook`
  stripe.setWebhookUrl(webhookUrl)
  return {
    stripe,
    webhookUrl,
    close: async () => {
      await web.close()
      await stripe.close()
    },
  }
}

/** POST /api/payment/checkout with `json` as the body; answers status, body and headers. */
export async function requestCheckout(token: string | undefined, json: unknown) {
  const response = await callRoute(
    checkoutAction,
    makeRequest('/api/payment/checkout', { method: 'POST', token, json }),
  )
  return { status: response.status, body: await response.json(), headers: response.headers }
}

/** A Checkout Session for `credits`, which must be created; answers its id and url. */
export async function checkoutSession(token: string, credits: number) {
  const answer = await requestCheckout(token, { creditAmount: credits })
  expect(answer.status).toBe(200)
  const url = answer.body.url as string
  return { url, id: decodeURIComponent(new URL(url).pathname.split('/').at(-1)!) }
}

/**
 * What a browser without JavaScript does on the hosted page: reads its Pay form and posts it.
 * Answers the address Stripe sends the buyer back to.
 */
export async function payOnHostedPage(url: string) {
  const page = await (await fetch(url)).text()
  const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1]
  if (!action) throw new Error(`no Pay form on ${url}`)
  const paid = await fetch(new URL(action, url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'method=card&email=buyer%40example.com',
    redirect: 'manual',
  })
  expect(paid.status).toBe(303)
  return paid.headers.get('location')!
}

/** Re-sends a delivery's exact bytes and signature, as Stripe does when it retries. */
export function redeliver(delivery: { body: string; signature: string }, webhookUrl: string) {
  return fetch(webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': delivery.signature },
    body: delivery.body,
  })
}

export async function cardCheckoutRow(sessionId: string) {
  return getDb().selectFrom('card_checkouts').selectAll().where('session_id', '=', sessionId).executeTakeFirst()
}

/** The user's ledger lines, oldest first. */
export function ledgerLines(userId: string) {
  return getDb()
    .selectFrom('credit_transactions')
    .select(['type', 'amount', 'description', 'payment_proof_id'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute()
}
