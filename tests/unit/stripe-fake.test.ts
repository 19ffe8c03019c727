import Stripe from 'stripe'
import { startStripeFake } from '#tests/fakes/stripe.ts'

// The Stripe fake against the official library: it refuses what Stripe documents refusing, as the
// library expects Stripe to (error classes, codes, params), and keeps Stripe's idempotency rules.
const fake = await startStripeFake()
afterAll(() => fake.close())
const stripe = new Stripe(fake.secretKey, { ...fake.clientOptions, maxNetworkRetries: 0, timeout: 2_000 })

const params: Stripe.Checkout.SessionCreateParams = {
  mode: 'payment',
  line_items: [
    { price_data: { currency: 'usd', unit_amount: 500, product_data: { name: '100 Pawtrait credits' } }, quantity: 1 },
  ],
  success_url: 'http://app.test/credit-history?session_id={CHECKOUT_SESSION_ID}',
  cancel_url: 'http://app.test/purchase-credits',
}
const item = (currency: string, unitAmount: number) => [
  { price_data: { currency, unit_amount: unitAmount, product_data: { name: 'x' } }, quantity: 1 },
]

test.each([
  ['a total under the minimum', { line_items: item('usd', 49) }, { code: 'amount_too_small' }],
  ['an unknown currency', { line_items: item('zzz', 500) }, { param: 'line_items[0][price_data][currency]' }],
  ['no line items', { line_items: undefined }, { code: 'parameter_missing', param: 'line_items' }],
  ['no success_url', { success_url: undefined }, { code: 'parameter_missing', param: 'success_url' }],
  ['a success_url that is no URL', { success_url: 'not a url' }, { code: 'url_invalid', param: 'success_url' }],
  ['no mode', { mode: undefined }, { code: 'parameter_missing', param: 'mode' }],
  ['an unknown parameter', { bogus: '1' }, { code: 'parameter_unknown', param: 'bogus' }],
])('refuses %s with 400 invalid_request_error', async (_, change, expected) => {
  const error = await stripe.checkout.sessions
    .create({ ...params, ...change } as Stripe.Checkout.SessionCreateParams)
    .catch((caught: unknown) => caught)
  expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
  expect(error).toMatchObject({ statusCode: 400, rawType: 'invalid_request_error', ...expected })
})

test('a wrong key is a 401; an unknown session a 404 resource_missing', async () => {
  const wrong = new Stripe('sk_test_wrong_key_abcd', { ...fake.clientOptions, maxNetworkRetries: 0 })
  await expect(wrong.checkout.sessions.create(params)).rejects.toMatchObject({
    type: 'StripeAuthenticationError',
    statusCode: 401,
    message: 'Invalid API Key provided: sk_test_**********abcd',
  })
  await expect(stripe.checkout.sessions.retrieve('cs_test_missing')).rejects.toMatchObject({
    statusCode: 404,
    code: 'resource_missing',
  })
})

test('an Idempotency-Key replays its first answer, refuses other parameters, and saves no refusal', async () => {
  const first = await stripe.checkout.sessions.create(params, { idempotencyKey: 'key-1' })
  const again = await stripe.checkout.sessions.create(params, { idempotencyKey: 'key-1' })
  expect(again.id).toBe(first.id)
  expect(again.lastResponse.headers['idempotent-replayed']).toBe('true')
  await expect(
    stripe.checkout.sessions.create({ ...params, client_reference_id: 'other' }, { idempotencyKey: 'key-1' }),
  ).rejects.toMatchObject({ type: 'StripeIdempotencyError', statusCode: 400 })
  await expect(
    stripe.checkout.sessions.create({ ...params, success_url: 'nope' }, { idempotencyKey: 'key-2' }),
  ).rejects.toMatchObject({ code: 'url_invalid' })
  expect((await stripe.checkout.sessions.create(params, { idempotencyKey: 'key-2' })).id).toMatch(/^cs_test_/)
})

test('a session is open and unpaid with a url until paid; then complete, paid, with a PaymentIntent and no url', async () => {
  const session = await stripe.checkout.sessions.create(params)
  expect(session).toMatchObject({ status: 'open', payment_status: 'unpaid', payment_intent: null, amount_total: 500 })
  expect(session.url).toBe(`${fake.url}/c/pay/${session.id}`)
  expect(await fake.pay(session.id)).toBe(`http://app.test/credit-history?session_id=${session.id}`)
  const paid = await stripe.checkout.sessions.retrieve(session.id, { expand: ['line_items'] })
  expect(paid).toMatchObject({ status: 'complete', payment_status: 'paid', url: null })
  expect(paid.payment_intent).toMatch(/^pi_/)
  expect(paid.line_items?.data[0]?.description).toBe('100 Pawtrait credits')
})
