/**
 * Stripe, through the official `stripe` package (it pins the API version its types describe), for
 * card payments (domain/payments/card-*.server.ts, decision 0041). Off without STRIPE_SECRET_KEY:
 * then getStripe() answers null and nothing offers a card. STRIPE_API_URL becomes the client's
 * host, port and protocol, which is how tests reach a local stand-in. A call waits
 * STRIPE_TIMEOUT_MS at most and is retried once (with the same Idempotency-Key), so an unreachable
 * Stripe is answered within seconds instead of the package's 80 s × 3.
 */
import Stripe from 'stripe'
import { type Env, getEnv } from './env.server.ts'

const MAX_NETWORK_RETRIES = 1
/** Stripe's replay window for webhook signatures (its libraries' default). */
export const WEBHOOK_TOLERANCE_SECONDS = 300

let client: Stripe | null | undefined

export function getStripe(): Stripe | null {
  if (client !== undefined) return client
  const env = getEnv()
  client = env.STRIPE_SECRET_KEY
    ? new Stripe(env.STRIPE_SECRET_KEY, {
        ...connectionOf(env.STRIPE_API_URL),
        timeout: env.STRIPE_TIMEOUT_MS,
        maxNetworkRetries: MAX_NETWORK_RETRIES,
        telemetry: false,
      })
    : null
  return client
}

function connectionOf(apiUrl: string) {
  const url = new URL(apiUrl)
  const https = url.protocol === 'https:'
  return {
    host: url.hostname,
    port: Number(url.port || (https ? 443 : 80)),
    protocol: https ? 'https' : 'http',
  } as const
}

const STRIPE_API_HOST = 'api.stripe.com'

/**
 * Where Checkout's hosted pages live, for the pages' form-action: Stripe serves them from
 * checkout.stripe.com; a stand-in at another STRIPE_API_URL serves them itself. Null when off.
 */
export function checkoutOrigin(env: Pick<Env, 'STRIPE_SECRET_KEY' | 'STRIPE_API_URL'>): string | null {
  if (!env.STRIPE_SECRET_KEY) return null
  const api = new URL(env.STRIPE_API_URL)
  return api.hostname === STRIPE_API_HOST ? 'https://checkout.stripe.com' : api.origin
}

/** Whether card payments are offered, and in Stripe's test mode: said at start-up, on /system-status and the purchase page. */
export function cardPaymentsState(): { on: boolean; testMode: boolean; summary: string } {
  const env = getEnv()
  const key = env.STRIPE_SECRET_KEY
  if (!key) return { on: false, testMode: false, summary: 'off (no STRIPE_SECRET_KEY)' }
  const testMode = /^(sk|rk)_test_/.test(key)
  return {
    on: true,
    testMode,
    summary: `on: Stripe Checkout in ${env.STRIPE_CURRENCY.toUpperCase()}${testMode ? ', test mode' : ', live mode'}`,
  }
}
