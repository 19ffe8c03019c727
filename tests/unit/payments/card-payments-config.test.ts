import { parseEnv } from '#platform/env.server.ts'
import { checkoutOrigin } from '#platform/stripe.server.ts'
import fs from 'node:fs'
import { creditsCoveredByRefund } from '#domain/payments/card-reversals.server.ts'
import { SUBSCRIBED_EVENTS } from '#domain/payments/card-events.server.ts'
import { documentDirectives } from '../../../server/content-security-policy.ts'

const base = { DATA_DIR: 'tests/.tmp/data' }
const stripe = { STRIPE_SECRET_KEY: 'sk_test_abc123', STRIPE_WEBHOOK_SECRET: 'whsec_xyz' }

test('without a key card payments are off, and the defaults are Stripe’s API in USD', () => {
  const env = parseEnv(base)
  expect(env.STRIPE_SECRET_KEY).toBeUndefined()
  expect(env).toMatchObject({
    STRIPE_API_URL: 'https://api.stripe.com',
    STRIPE_CURRENCY: 'usd',
    STRIPE_TIMEOUT_MS: 5000,
  })
  expect(checkoutOrigin(env)).toBeNull()
  expect(documentDirectives(env, "'nonce-x'")['form-action']).toEqual(["'self'", 'https://accounts.google.com'])
})

test('each variable is checked where the process reads it, with a message naming it', () => {
  expect(() => parseEnv({ ...base, STRIPE_SECRET_KEY: 'sk_test_abc123' })).toThrow(
    /STRIPE_WEBHOOK_SECRET: is required with STRIPE_SECRET_KEY/,
  )
  expect(() => parseEnv({ ...base, ...stripe, STRIPE_SECRET_KEY: 'pk_test_abc' })).toThrow(
    /STRIPE_SECRET_KEY: must be a Stripe secret key/,
  )
  expect(() => parseEnv({ ...base, ...stripe, STRIPE_WEBHOOK_SECRET: 'secret' })).toThrow(
    /STRIPE_WEBHOOK_SECRET: must be/,
  )
  expect(() => parseEnv({ ...base, ...stripe, STRIPE_API_URL: 'https://api.stripe.com/v1' })).toThrow(
    /STRIPE_API_URL: must be an origin without a path/,
  )
  expect(() => parseEnv({ ...base, ...stripe, STRIPE_CURRENCY: 'dollars' })).toThrow(/STRIPE_CURRENCY/)
  expect(parseEnv({ ...base, ...stripe, STRIPE_CURRENCY: 'EUR' }).STRIPE_CURRENCY).toBe('eur')
})

test('the pages may post to Checkout: Stripe’s checkout.stripe.com, or a stand-in’s own origin', () => {
  const live = parseEnv({ ...base, ...stripe })
  expect(checkoutOrigin(live)).toBe('https://checkout.stripe.com')
  expect(documentDirectives(live, "'nonce-x'")['form-action']).toContain('https://checkout.stripe.com')
  const local = parseEnv({ ...base, ...stripe, STRIPE_API_URL: 'http://127.0.0.1:3602' })
  expect(checkoutOrigin(local)).toBe('http://127.0.0.1:3602')
})

test('a refund covers its share of the credits, rounded up, never more than the payment', () => {
  expect(creditsCoveredByRefund(500, 500, 2500)).toBe(100)
  expect(creditsCoveredByRefund(500, 1, 2500)).toBe(1)
  expect(creditsCoveredByRefund(500, 2500, 2500)).toBe(500)
  expect(creditsCoveredByRefund(500, 9999, 2500)).toBe(500)
})

test('the README names every event the webhook handles, to subscribe to on Stripe’s dashboard', () => {
  const readme = fs.readFileSync('README.md', 'utf8')
  const section = readme.slice(readme.indexOf('## Card payments'), readme.indexOf('## Security headers'))
  expect(SUBSCRIBED_EVENTS).toHaveLength(6)
  for (const event of SUBSCRIBED_EVENTS) expect(section).toContain(`\`${event}\``)
  expect(section).toContain('2026-10-28.endive')
})
