import { sql } from 'kysely'
import Stripe from 'stripe'
import { loader as creditHistoryApi } from '#app/routes/api.image.credit-history.ts'
import { action as purchaseAction, loader as purchaseLoader } from '#app/routes/purchase-credits.tsx'
import { loader as creditHistoryPage } from '#app/routes/credit-history.tsx'
import { loader as paymentReviewLoader } from '#app/routes/payment-review.tsx'
import { flushAnalytics } from '#domain/analytics/events.server.ts'
import { analyticsSummary } from '#domain/analytics/report.server.ts'
import { toDateString } from '#domain/analytics/date-range.ts'
import { systemStatus } from '#domain/operator/system-status.server.ts'
import { createCardCheckout } from '#domain/payments/card-checkout.server.ts'
import { exportEntries } from '#domain/user-data/export-contents.server.ts'
import { getDb } from '#platform/db.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import {
  cardCheckoutRow,
  checkoutSession,
  ledgerLines,
  payOnHostedPage,
  redeliver,
  requestCheckout,
  startCardPayments,
} from '#tests/helpers/card-payments.ts'
import { queuedJobs } from '#tests/helpers/jobs.ts'
import { creditsOf } from '#tests/helpers/payments.ts'
import { STRIPE_FAKE_API_VERSION, stripeSignatureHeader } from '#tests/fakes/stripe.ts'

process.env.OWNER_EMAIL = 'owner@pawtrait.test'
const { stripe, webhookUrl, close } = await startCardPayments()
afterAll(close)
afterEach(() => {
  stripe.setFailure('none')
  stripe.setDeliveryMode('before_redirect')
})

const db = getDb()
const checkoutCount = async () =>
  Number(
    (
      await db
        .selectFrom('card_checkouts')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )
const emailsTo = async (to: string) =>
  (await queuedJobs<{ to: string; subject: string; text: string }>('send_email')).filter((mail) => mail.to === to)

/** The purchase form sent by its "Pay by card" button. */
function payByCardOnPage(token: string, fields: Record<string, string>) {
  const form = new FormData()
  for (const [name, value] of Object.entries({ ...fields, intent: 'card' })) form.set(name, value)
  return callRoute(purchaseAction, makeRequest('/purchase-credits', { token, body: form }))
}

/** Pays the session with no endpoint to deliver to: answers the signed checkout.session.completed. */
async function signedButNotSent(sessionId: string) {
  stripe.setWebhookUrl(null)
  try {
    await stripe.pay(sessionId)
  } finally {
    stripe.setWebhookUrl(webhookUrl)
  }
  const delivery = stripe.deliveries.at(-1)!
  expect(delivery).toMatchObject({ status: 0, event: { type: 'checkout.session.completed' } })
  return delivery
}

/** A buyer who paid for `credits` on the hosted page (the webhook delivered before the redirect). */
async function paidBuyer(credits = 500, options: Parameters<typeof createTestUser>[0] = {}) {
  const buyer = await createTestUser(options)
  const session = await checkoutSession(buyer.token, credits)
  const before = await creditsOf(buyer.user.id)
  const back = await payOnHostedPage(session.url)
  return { ...buyer, session, before, back }
}

describe('checkout', () => {
  test('POST /api/payment/checkout creates the session Stripe documents, with an Idempotency-Key, and answers its url', async () => {
    const { user, token } = await createTestUser()
    const answer = await requestCheckout(token, { creditAmount: 500 })
    expect(answer.status).toBe(200)
    expect(answer.body.url).toMatch(new RegExp(`^${stripe.url}/c/pay/cs_test_`))

    const sent = stripe.requests.at(-1)!
    expect(sent.method).toBe('POST')
    expect(sent.path).toBe('/v1/checkout/sessions')
    expect(sent.authorization).toBe(`Bearer ${stripe.secretKey}`)
    expect(sent.contentType).toBe('application/x-www-form-urlencoded')
    // The API version the official package pins, which the README tells operators to set on the endpoint.
    expect(sent.stripeVersion).toBe(STRIPE_FAKE_API_VERSION)
    expect(sent.idempotencyKey).toMatch(/^pawtrait-checkout-[0-9a-f-]{36}$/)
    expect(sent.params).toEqual({
      mode: 'payment',
      line_items: [
        {
          price_data: { currency: 'usd', unit_amount: '2500', product_data: { name: '500 Pawtrait credits' } },
          quantity: '1',
        },
      ],
      client_reference_id: user.id,
      metadata: { userId: user.id, credits: '500' },
      success_url: 'http://localhost:3000/credit-history?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://localhost:3000/purchase-credits',
    })
    const id = new URL(answer.body.url).pathname.split('/').at(-1)!
    expect(await cardCheckoutRow(id)).toMatchObject({
      user_id: user.id,
      credit_amount: 500,
      amount_cents: 2500,
      currency: 'usd',
      status: 'open',
    })
  })

  test('the purchase page offers Card in test mode; its button answers 303 to the session url', async () => {
    const { token } = await createTestUser()
    const page = await callRoute(purchaseLoader, makeRequest('/purchase-credits', { token }))
    expect((await page.json()).card).toEqual({ on: true, testMode: true })

    const response = await payByCardOnPage(token, { creditOption: 'custom', customCredits: '300' })
    expect(response.status).toBe(303)
    const location = response.headers.get('location')!
    expect(location).toMatch(new RegExp(`^${stripe.url}/c/pay/cs_test_`))
    expect(stripe.requests.at(-1)!.params.line_items).toEqual([
      {
        price_data: { currency: 'usd', unit_amount: '1500', product_data: { name: '300 Pawtrait credits' } },
        quantity: '1',
      },
    ])
  })

  test('an amount under 100 or not in hundreds is refused naming the field, and nothing is asked of Stripe', async () => {
    const { token } = await createTestUser()
    const asked = stripe.requests.length
    for (const [json, message] of [
      [{ creditAmount: 50 }, 'Credit amount must be at least 100'],
      [{ creditAmount: 150 }, 'Credit amount must be a multiple of 100'],
      [{ creditAmount: '500' }, 'Credit amount must be a number'],
      [{}, 'Please choose a credit amount'],
    ] as const) {
      const answer = await requestCheckout(token, json)
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual({ message, field: 'creditAmount' })
    }
    const page = await payByCardOnPage(token, { creditOption: 'custom', customCredits: '250' })
    expect(page.status).toBe(400)
    expect((await page.json()).result.error).toEqual({ customCredits: ['Credit amount must be a multiple of 100'] })
    expect(stripe.requests.length).toBe(asked)
  })

  test('a guest is refused with 401, and a banned user with 403, before Stripe is asked', async () => {
    expect((await requestCheckout(undefined, { creditAmount: 100 })).status).toBe(401)
    const { user } = await createTestUser()
    const asked = stripe.requests.length
    await expect(createCardCheckout(db, { ...user, is_banned: true }, 100)).rejects.toMatchObject({
      status: 403,
      message: 'Your account has been banned, please contact the administrator',
    })
    expect(stripe.requests.length).toBe(asked)
  })

  test.each(['5xx', 'down', 'slow', 'rate_limit'] as const)(
    'Stripe %s: 503 with Retry-After within seconds, and nothing recorded',
    async (failure) => {
      const { token } = await createTestUser()
      stripe.setFailure(failure)
      const before = await checkoutCount()
      const started = Date.now()
      const answer = await requestCheckout(token, { creditAmount: 100 })
      expect(answer.status).toBe(503)
      expect(answer.headers.get('retry-after')).toBe('5')
      expect(answer.body).toEqual({
        message: 'Card payments are unavailable right now, please try again or choose another method',
      })
      // 500 ms a call, one retry after Stripe's back-off: never the SDK's 80 s.
      expect(Date.now() - started).toBeLessThan(4_000)
      expect(await checkoutCount()).toBe(before)
    },
  )

  test('the page shows the same 503 above the form', async () => {
    const { token } = await createTestUser()
    stripe.setFailure('5xx')
    const page = await payByCardOnPage(token, { creditOption: '100' })
    expect(page.status).toBe(503)
    expect((await page.json()).result.error).toEqual({
      '': ['Card payments are unavailable right now, please try again or choose another method'],
    })
  })
})

describe('fulfilment', () => {
  test('paying on the hosted page credits the buyer once, as a card payment approved by the system', async () => {
    const { user, token, session, before, back } = await paidBuyer(500)
    expect(back).toBe(`http://localhost:3000/credit-history?session_id=${session.id}`)
    expect(await creditsOf(user.id)).toBe(before + 500)
    const delivery = stripe.deliveries.at(-1)!
    expect(delivery.event.type).toBe('checkout.session.completed')
    expect(delivery.status).toBe(200)

    const proof = await db
      .selectFrom('payment_proofs')
      .selectAll()
      .where('transaction_id', '=', session.id)
      .executeTakeFirstOrThrow()
    expect(proof).toMatchObject({
      user_id: user.id,
      payment_method: 'card',
      credit_amount: 500,
      amount_cents: 2500,
      status: 'approved',
      reviewer_id: null,
    })
    expect((await ledgerLines(user.id)).at(-1)).toEqual({
      type: 'purchase',
      amount: 500,
      description: 'Card payment: 500 credits',
      payment_proof_id: proof.id,
    })

    // The same event again, as Stripe retries it: acknowledged, nothing added.
    const again = await redeliver(delivery, webhookUrl)
    expect(again.status).toBe(200)
    expect(await creditsOf(user.id)).toBe(before + 500)

    // The success page finds it paid and says so, without asking Stripe.
    const asked = stripe.requests.length
    const page = await callRoute(creditHistoryPage, makeRequest(`/credit-history?session_id=${session.id}`, { token }))
    const data = await page.json()
    expect(data.card).toEqual({ status: 'paid', credits: 500 })
    expect(data.credits).toBe(before + 500)
    expect(stripe.requests.length).toBe(asked)
  })

  test('ten parallel deliveries of one event credit once', async () => {
    const { user, token } = await createTestUser()
    const session = await checkoutSession(token, 300)
    const before = await creditsOf(user.id)
    const delivery = await signedButNotSent(session.id)
    const answers = await Promise.all(Array.from({ length: 10 }, () => redeliver(delivery, webhookUrl)))
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200))
    expect(await creditsOf(user.id)).toBe(before + 300)
    expect((await ledgerLines(user.id)).filter((line) => line.type === 'purchase')).toHaveLength(1)
  })

  test('a late webhook: the success page asks Stripe and credits; the webhook then adds nothing', async () => {
    stripe.setDeliveryMode('manual')
    const { user, token } = await createTestUser()
    const session = await checkoutSession(token, 200)
    const before = await creditsOf(user.id)
    const back = await payOnHostedPage(session.url)
    expect(await creditsOf(user.id)).toBe(before)

    const page = await callRoute(
      creditHistoryPage,
      makeRequest(new URL(back).pathname + new URL(back).search, { token }),
    )
    const data = await page.json()
    expect(data.card).toEqual({ status: 'paid', credits: 200 })
    expect(data.credits).toBe(before + 200)
    expect(data.history[0]).toMatchObject({ type: 'purchase', amount: 200, description: 'Card payment: 200 credits' })
    expect(stripe.requests.at(-1)).toMatchObject({ method: 'GET', path: `/v1/checkout/sessions/${session.id}` })

    const [delivery] = await stripe.flushWebhooks()
    expect(delivery.status).toBe(200)
    expect(await creditsOf(user.id)).toBe(before + 200)
  })

  test('the webhook racing the success page credits once', async () => {
    stripe.setDeliveryMode('manual')
    const { user, token } = await createTestUser()
    const session = await checkoutSession(token, 100)
    const before = await creditsOf(user.id)
    await payOnHostedPage(session.url)
    const page = () => callRoute(creditHistoryPage, makeRequest(`/credit-history?session_id=${session.id}`, { token }))
    const [deliveries, ...pages] = await Promise.all([stripe.flushWebhooks(), page(), page(), page()])
    expect(deliveries.map((delivery) => delivery.status)).toEqual([200])
    for (const response of pages) expect((await response.json()).card.status).toBe('paid')
    expect(await creditsOf(user.id)).toBe(before + 100)
  })

  test("another user's session on the success page is not theirs to confirm", async () => {
    stripe.setDeliveryMode('manual')
    const buyer = await createTestUser()
    const other = await createTestUser()
    const session = await checkoutSession(buyer.token, 100)
    await payOnHostedPage(session.url)
    const page = await callRoute(
      creditHistoryPage,
      makeRequest(`/credit-history?session_id=${session.id}`, { token: other.token }),
    )
    expect((await page.json()).card).toBeNull()
    expect((await cardCheckoutRow(session.id))!.status).toBe('open')
    await stripe.flushWebhooks()
    expect((await cardCheckoutRow(session.id))!.status).toBe('paid')
  })

  test('a delayed payment: processing when completed unpaid, credited when it succeeds', async () => {
    const { user, token } = await createTestUser()
    const session = await checkoutSession(token, 400)
    const before = await creditsOf(user.id)
    const [completed, succeeded] = await stripe.payAsync(session.id, true)
    expect(completed.event.data.object).toMatchObject({ payment_status: 'unpaid' })
    expect(completed.status).toBe(200)
    expect(succeeded.event.type).toBe('checkout.session.async_payment_succeeded')
    expect(succeeded.status).toBe(200)
    expect(await creditsOf(user.id)).toBe(before + 400)
    expect((await cardCheckoutRow(session.id))!.status).toBe('paid')
  })

  test('a delayed payment that fails is recorded once and the buyer is told by email', async () => {
    const { user, token } = await createTestUser()
    const session = await checkoutSession(token, 100)
    const before = await creditsOf(user.id)
    await stripe.payAsync(session.id, false)
    const row = await cardCheckoutRow(session.id)
    expect(row).toMatchObject({ status: 'failed' })
    expect(row!.payment_intent).toMatch(/^pi_/)
    await redeliver(stripe.deliveries.at(-1)!, webhookUrl)
    const mails = await emailsTo(user.email)
    expect(mails).toHaveLength(1)
    expect(mails[0].subject).toBe('Your Pawtrait card payment did not go through')
    expect(mails[0].text).toContain('5.00 USD for 100 credits did not go through')
    expect(await creditsOf(user.id)).toBe(before)
    const page = await callRoute(creditHistoryPage, makeRequest(`/credit-history?session_id=${session.id}`, { token }))
    expect((await page.json()).card).toEqual({ status: 'failed', credits: 100 })
  })

  test('events for a session or a buyer we do not know are acknowledged (200), logged, and change nothing', async () => {
    const stranger = {
      ...stripe.sessions.values().next().value!,
      id: 'cs_test_from_another_shop',
      payment_status: 'paid',
    }
    const unknown = await stripe.deliver('checkout.session.completed', stranger)
    expect(unknown.status).toBe(200)

    // A buyer who deleted their account before paying.
    stripe.setDeliveryMode('manual')
    const { user, token } = await createTestUser()
    const session = await checkoutSession(token, 100)
    await payOnHostedPage(session.url)
    await db.deleteFrom('users').where('id', '=', user.id).execute()
    const [gone] = await stripe.flushWebhooks()
    expect(gone.status).toBe(200)
    expect(
      await db.selectFrom('payment_proofs').where('transaction_id', '=', session.id).selectAll().execute(),
    ).toEqual([])
    const ignored = await stripe.deliver('customer.created', { id: 'cus_1', object: 'customer' })
    expect(ignored.status).toBe(200)
  })
})

describe('the webhook refuses what Stripe did not sign', () => {
  const event = () => stripe.deliveries.find((delivery) => delivery.event.type === 'checkout.session.completed')!

  test('a missing or wrong signature, or one older than 5 minutes, is a 400 that changes nothing', async () => {
    const { user, token } = await createTestUser()
    const session = await checkoutSession(token, 100)
    const before = await creditsOf(user.id)
    const { body } = await signedButNotSent(session.id)
    const post = (headers: Record<string, string>, payload = body) =>
      fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: payload })

    const missing = await post({})
    expect(missing.status).toBe(400)
    expect(await missing.json()).toEqual({ message: 'The Stripe-Signature header is missing' })
    const foreign = await post({ 'stripe-signature': stripeSignatureHeader(body, 'whsec_someone_else') })
    expect(foreign.status).toBe(400)
    expect((await foreign.json()).message).toMatch(/does not verify/)
    const old = Math.floor(Date.now() / 1000) - 301
    expect((await post({ 'stripe-signature': stripeSignatureHeader(body, stripe.webhookSecret, old) })).status).toBe(
      400,
    )
    // Signed, then altered.
    const altered = body.replace('"paid"', '"paid" ')
    expect(
      (await post({ 'stripe-signature': stripeSignatureHeader(body, stripe.webhookSecret) }, altered)).status,
    ).toBe(400)
    expect(await creditsOf(user.id)).toBe(before)
    expect((await cardCheckoutRow(session.id))!.status).toBe('open')

    // Within the tolerance it is accepted.
    const recent = Math.floor(Date.now() / 1000) - 200
    expect((await post({ 'stripe-signature': stripeSignatureHeader(body, stripe.webhookSecret, recent) })).status).toBe(
      200,
    )
    expect(await creditsOf(user.id)).toBe(before + 100)
  })

  test('a body over 1 MB is a 413', async () => {
    const huge = JSON.stringify({ ...event()?.event, padding: 'x'.repeat(1024 * 1024) })
    const answer = await fetch(webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': stripeSignatureHeader(huge, stripe.webhookSecret),
      },
      body: huge,
    })
    expect(answer.status).toBe(413)
  })

  test('the SDK signs as the fake does', () => {
    const body = '{"id":"evt_1"}'
    const t = Math.floor(Date.now() / 1000)
    expect(
      Stripe.webhooks.generateTestHeaderString({ payload: body, secret: stripe.webhookSecret, timestamp: t }),
    ).toBe(stripeSignatureHeader(body, stripe.webhookSecret, t))
  })
})

describe('a payment like the others', () => {
  test('credit history, reviewed payments, analytics, the referral reward and the data export', async () => {
    const sharer = await createTestUser()
    const sharerBefore = await creditsOf(sharer.user.id)
    const buyer = await createTestUser()
    await db.updateTable('users').set({ referrer_id: sharer.user.id }).where('id', '=', buyer.user.id).execute()
    const session = await checkoutSession(buyer.token, 500)
    await payOnHostedPage(session.url)

    const history = await (
      await callRoute(creditHistoryApi, makeRequest('/api/image/credit-history', { token: buyer.token }))
    ).json()
    expect(history.history).toContainEqual(
      expect.objectContaining({ type: 'purchase', amount: 500, description: 'Card payment: 500 credits' }),
    )

    // The first credited purchase of a referred user pays the sharer.
    expect(await creditsOf(sharer.user.id)).toBeGreaterThan(sharerBefore)
    expect(
      await db
        .selectFrom('referral_payouts')
        .selectAll()
        .where('referred_user_id', '=', buyer.user.id)
        .executeTakeFirst(),
    ).toMatchObject({ referrer_id: sharer.user.id })

    const admin = await createTestUser({ role: 'superadmin' })
    const review = await (
      await callRoute(paymentReviewLoader, makeRequest('/payment-review', { token: admin.token }))
    ).json()
    expect(review.reviewed).toContainEqual(
      expect.objectContaining({
        transactionId: session.id,
        paymentMethod: 'card',
        status: 'approved',
        creditAmount: 500,
        reviewedBy: null,
      }),
    )

    await flushAnalytics()
    const today = toDateString(new Date())
    const start = new Date(`${today}T00:00:00.000Z`)
    const summary = await analyticsSummary(db, {
      startDate: today,
      endDate: today,
      start,
      end: new Date(start.getTime() + 86_400_000),
      days: 1,
    })
    expect(summary.paymentMethods.find((row) => row.method === 'card')?.count).toBeGreaterThanOrEqual(1)
    const purchases = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM analytics_events
      WHERE type = 'credit_purchase' AND user_id = ${buyer.user.id} AND details->>'paymentMethod' = 'card'
    `.execute(db)
    expect(purchases.rows[0].n).toBe(1)
    expect(summary.counts.creditPurchases).toBeGreaterThanOrEqual(1)

    const entries = await exportEntries(db, buyer.user.id)
    const proofs = entries.find((entry) => entry.name === 'payment-proofs.json')
    const listed = JSON.parse(Buffer.from((proofs as { bytes: Uint8Array }).bytes).toString('utf8'))
    expect(listed).toContainEqual(
      expect.objectContaining({
        paymentMethod: 'card',
        transactionId: session.id,
        creditAmount: 500,
        status: 'approved',
      }),
    )
  })

  test('/system-status says card payments are on, in test mode', async () => {
    const status = await systemStatus(db)
    expect(status.cardPayments).toEqual({ on: true, testMode: true, summary: 'on: Stripe Checkout in USD, test mode' })
  })
})

describe('money that goes back', () => {
  test('a partial then a full refund take back their share of the credits, each event once', async () => {
    const { user, session, before } = await paidBuyer(500)
    const partial = await stripe.refund(session.id, 500) // 5.00 of 25.00 USD: 100 credits
    expect(partial.status).toBe(200)
    expect(await creditsOf(user.id)).toBe(before + 400)
    expect((await ledgerLines(user.id)).at(-1)).toMatchObject({
      type: 'adjustment',
      amount: -100,
      description: 'Card payment refunded (5.00 USD of 25.00 USD): 100 credits taken back',
    })
    expect((await redeliver(partial, webhookUrl)).status).toBe(200)
    expect(await creditsOf(user.id)).toBe(before + 400)

    await stripe.refund(session.id)
    expect(await creditsOf(user.id)).toBe(before)
    expect((await cardCheckoutRow(session.id))!.reversed_credits).toBe(500)
  })

  test('credits already spent stay spent: the balance never goes below zero', async () => {
    const { user, session } = await paidBuyer(500, { credits: 0 })
    await db.updateTable('users').set({ credits: 120 }).where('id', '=', user.id).execute()
    await stripe.refund(session.id)
    expect(await creditsOf(user.id)).toBe(0)
    expect((await ledgerLines(user.id)).at(-1)).toMatchObject({
      amount: -120,
      description: 'Card payment refunded (25.00 USD of 25.00 USD): 120 credits taken back (380 already spent)',
    })
  })

  test('a dispute takes back what is left, emails OWNER_EMAIL, and applies once', async () => {
    const { user, session, before } = await paidBuyer(300)
    await stripe.refund(session.id, 500) // 100 of the 300 credits
    const disputed = await stripe.dispute(session.id)
    expect(disputed.status).toBe(200)
    expect(await creditsOf(user.id)).toBe(before)
    expect((await ledgerLines(user.id)).at(-1)).toMatchObject({
      amount: -200,
      description: 'Card payment disputed: 200 credits taken back',
    })
    await Promise.all([redeliver(disputed, webhookUrl), redeliver(disputed, webhookUrl)])
    expect(await creditsOf(user.id)).toBe(before)

    const mails = (await emailsTo('owner@pawtrait.test')).filter((mail) => mail.text.includes(session.id))
    expect(mails).toHaveLength(1)
    expect(mails[0].subject).toBe('A Pawtrait card payment was disputed (15.00 USD)')
    expect(mails[0].text).toContain(`Buyer: ${user.email}`)
    expect(mails[0].text).toContain('reason: fraudulent')
  })
})
