import { randomUUID } from 'node:crypto'
import { gunzipSync } from 'node:zlib'
import type { Role } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'
import {
  flushAnalytics,
  recordCreditPurchase,
  recordEvent,
  recordImageGeneration,
  recordLogin,
  recordPageView,
  recordPayment,
  recordRegistration,
} from '#domain/analytics/events.server.ts'
import { analyticsSummary } from '#domain/analytics/report.server.ts'
import { dateRangeSchema, presetRange, toDateString } from '#domain/analytics/date-range.ts'
import { loader as overviewLoader } from '#app/routes/api.analytics.overview.ts'
import { action as pageViewAction } from '#app/routes/api.analytics.pageview.ts'
import { loader as taskLoader } from '#app/routes/api.async-image.task.$id.ts'
import { loader as todayLoader } from '#app/routes/api.async-image.tasks.today.ts'
import { loader as meLoader } from '#app/routes/api.auth.me.ts'
import { loader as analyticsPageLoader } from '#app/routes/analytics.tsx'
import { CLIENT_ADDRESS_HEADER } from '#platform/client-address.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'

const browser = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
// An address the bundled geoip database places in Great Britain.
const britishIp = '81.2.69.142'

type Overview = Record<string, Array<Record<string, unknown>>>

const tokens = {} as Record<Role, string>

beforeAll(async () => {
  for (const role of ['user', 'admin', 'superadmin'] as const) tokens[role] = (await createTestUser({ role })).token
})

/** As the superadmin, unless another token (or null: a guest) is given. */
async function overview(query: string, token: string | null = tokens.superadmin) {
  return callRoute(overviewLoader, makeRequest(`/api/analytics/overview?${query}`, { token: token ?? undefined }))
}

/** Events of a past range, written with exact timestamps to test the range's edges. */
async function seedEvents(
  rows: Array<{ type: string; at: string; country?: string; city?: string; details?: object }>,
) {
  await getDb()
    .insertInto('analytics_events')
    .values(
      rows.map((row) => ({
        type: row.type,
        created_at: row.at,
        country: row.country ?? null,
        city: row.city ?? null,
        details: JSON.stringify(row.details ?? {}),
      })),
    )
    .execute()
}

describe('GET /api/analytics/overview permissions', () => {
  test('a guest gets 401, a user and an admin 403, a superadmin 200', async () => {
    const query = 'startDate=2025-01-01&endDate=2025-01-02'
    expect((await overview(query, null)).status).toBe(401)
    expect((await overview(query, tokens.user)).status).toBe(403)
    expect((await overview(query, tokens.admin)).status).toBe(403)
    const allowed = await overview(query, tokens.superadmin)
    expect(allowed.status).toBe(200)
    expect(Object.keys(await allowed.json())).toEqual([
      'pageViews',
      'userRegisters',
      'userLogins',
      'creditPurchases',
      'apiCalls',
      'imageGenerations',
      'templateUses',
      'paymentMethods',
      'paymentAmounts',
      'locations',
    ])
  })

  test.each([
    ['', 'startDate and endDate are required, as YYYY-MM-DD'],
    ['startDate=2025-01-01', 'startDate and endDate are required, as YYYY-MM-DD'],
    ['startDate=01/02/2025&endDate=2025-01-03', 'Dates must be real calendar dates in YYYY-MM-DD format'],
    ['startDate=2025-02-30&endDate=2025-03-03', 'Dates must be real calendar dates in YYYY-MM-DD format'],
    ['startDate=2025-03-03&endDate=2025-03-02', 'endDate must not be before startDate'],
    ['startDate=2024-01-01&endDate=2025-03-01', 'The date range can span at most 400 days'],
  ])('rejects the range "%s" with 400', async (query, message) => {
    const response = await overview(query)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ message })
  })
})

describe('overview counts', () => {
  const range = 'startDate=2025-03-01&endDate=2025-03-03'

  beforeAll(async () => {
    await seedEvents([
      // Page views just outside and just inside both edges of the range.
      { type: 'page_view', at: '2025-02-28T23:59:59.999Z', country: 'FR', city: 'Paris' },
      { type: 'page_view', at: '2025-03-01T00:00:00.000Z', country: 'GB', city: 'London' },
      { type: 'page_view', at: '2025-03-02T12:00:00.000Z', country: 'GB', city: 'London' },
      { type: 'page_view', at: '2025-03-03T23:59:59.999Z' },
      { type: 'page_view', at: '2025-03-04T00:00:00.000Z', country: 'FR', city: 'Paris' },
      { type: 'user_register', at: '2025-03-01T08:00:00.000Z' },
      { type: 'user_login', at: '2025-03-01T09:00:00.000Z' },
      { type: 'user_login', at: '2025-03-02T09:00:00.000Z' },
      { type: 'credit_purchase', at: '2025-03-02T10:00:00.000Z' },
      { type: 'api_call', at: '2025-03-02T10:00:00.000Z' },
      { type: 'image_generation', at: '2025-03-01T10:00:00.000Z' },
      { type: 'image_generation', at: '2025-03-01T11:00:00.000Z' },
      { type: 'image_generation', at: '2025-03-03T10:00:00.000Z' },
      { type: 'template_use', at: '2025-03-03T10:00:00.000Z' },
      { type: 'payment', at: '2025-03-02T10:00:00.000Z', details: { paymentMethod: 'paypal_me', amount: 5 } },
      { type: 'payment', at: '2025-03-02T11:00:00.000Z', details: { paymentMethod: 'paypal_me', amount: 10 } },
      { type: 'payment', at: '2025-03-03T11:00:00.000Z', details: { amount: 15 } },
    ])
  })

  test('answers every record of the range, edges included, and nothing outside it', async () => {
    const response = await overview(range)
    expect(response.headers.get('content-type')).toMatch(/application\/json/)
    const body = (await response.json()) as Overview
    expect(body.pageViews).toEqual([
      { createdAt: '2025-03-01T00:00:00.000Z' },
      { createdAt: '2025-03-02T12:00:00.000Z' },
      { createdAt: '2025-03-03T23:59:59.999Z' },
    ])
    expect(body.userRegisters).toHaveLength(1)
    expect(body.userLogins).toHaveLength(2)
    expect(body.creditPurchases).toHaveLength(1)
    expect(body.apiCalls).toHaveLength(1)
    expect(body.imageGenerations).toHaveLength(3)
    expect(body.templateUses).toEqual([{ createdAt: '2025-03-03T10:00:00.000Z' }])
    expect(body.paymentMethods).toEqual([
      { createdAt: '2025-03-02T10:00:00.000Z', details: { paymentMethod: 'paypal_me', amount: 5 } },
      { createdAt: '2025-03-02T11:00:00.000Z', details: { paymentMethod: 'paypal_me', amount: 10 } },
      { createdAt: '2025-03-03T11:00:00.000Z', details: { paymentMethod: null, amount: 15 } },
    ])
    expect(body.paymentAmounts.map((record) => (record.details as { amount: number }).amount)).toEqual([5, 10, 15])
    expect(body.locations).toEqual([
      { country: 'GB', city: 'London', count: 2 },
      { country: 'Unknown', city: 'Unknown', count: 1 },
    ])
  })

  test('a client that accepts gzip gets the same answer compressed', async () => {
    const request = makeRequest(`/api/analytics/overview?${range}`, {
      token: tokens.superadmin,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    })
    const response = await callRoute(overviewLoader, request)
    expect(response.headers.get('content-encoding')).toBe('gzip')
    const body = JSON.parse(gunzipSync(Buffer.from(await response.arrayBuffer())).toString('utf8')) as Overview
    expect(body).toEqual(await (await overview(range)).json())
  })

  test('a one-day range holds only that day', async () => {
    const body = (await (await overview('startDate=2025-03-04&endDate=2025-03-04')).json()) as Overview
    expect(body.pageViews).toEqual([{ createdAt: '2025-03-04T00:00:00.000Z' }])
    expect(body.imageGenerations).toEqual([])
    expect(body.locations).toEqual([{ country: 'FR', city: 'Paris', count: 1 }])
  })

  test('the page summary counts the same events and groups them per day, method and place', async () => {
    const summary = await analyticsSummary(
      getDb(),
      dateRangeSchema.parse({ startDate: '2025-03-01', endDate: '2025-03-03' }),
    )
    expect(summary.counts).toEqual({
      pageViews: 3,
      userRegisters: 1,
      userLogins: 2,
      creditPurchases: 1,
      apiCalls: 1,
      imageGenerations: 3,
    })
    expect(summary.imageGenerationsByDay).toEqual([
      { date: '2025-03-01', count: 2 },
      { date: '2025-03-02', count: 0 },
      { date: '2025-03-03', count: 1 },
    ])
    expect(summary.paymentMethods).toEqual([
      { method: 'paypal_me', count: 2 },
      { method: 'Other', count: 1 },
    ])
    expect(summary.locations[1]).toEqual({ country: 'Unknown', city: 'Unknown', count: 1 })
  })
})

describe('recording', () => {
  const today = () => `startDate=${toDateString(new Date())}&endDate=${toDateString(new Date())}`

  async function todaysEvents(type: string) {
    await flushAnalytics()
    return getDb()
      .selectFrom('analytics_events')
      .selectAll()
      .where('type', '=', type)
      .where('created_at', '>=', new Date(`${toDateString(new Date())}T00:00:00Z`))
      .orderBy('id')
      .execute()
  }

  test("a page view is placed by the client's address (not X-Forwarded-For); bots are not counted", async () => {
    const headers = { 'user-agent': browser, [CLIENT_ADDRESS_HEADER]: britishIp, 'x-forwarded-for': '8.8.8.8' }
    recordPageView(makeRequest('/generate', { headers }), { path: '/generate', userId: null })
    recordPageView(makeRequest('/gallery', { headers: { 'user-agent': googlebot } }), {
      path: '/gallery',
      userId: null,
    })
    recordPageView(makeRequest('/contact', { headers: { 'user-agent': browser } }), { path: '/contact', userId: null })
    const views = await todaysEvents('page_view')
    expect(views.map((view) => view.path)).toEqual(['/generate', '/contact'])
    expect(views[0].country).toBe('GB')
    expect(views[1]).toMatchObject({ country: null, city: null })

    const body = (await (await overview(today())).json()) as Overview
    expect(body.pageViews).toHaveLength(2)
    expect(body.locations).toContainEqual({ country: 'Unknown', city: 'Unknown', count: 1 })
  })

  test('the page-view beacon records the path without its query, skips bots and validates its body', async () => {
    const { user, token } = await createTestUser()
    const send = (json: unknown, userAgent = browser) =>
      callRoute(
        pageViewAction,
        makeRequest('/api/analytics/pageview', { token, json, headers: { 'user-agent': userAgent } }),
      )
    expect((await send({ path: '/history?token=secret' })).status).toBe(204)
    expect((await send({ path: '/profile' }, googlebot)).status).toBe(204)
    expect((await send({ path: 'https://elsewhere.example/' })).status).toBe(400)
    expect((await send({})).status).toBe(400)

    const views = (await todaysEvents('page_view')).filter((view) => view.user_id === user.id)
    expect(views.map((view) => view.path)).toEqual(['/history'])
  })

  test('API calls are counted with method and status, the beacon and the UI polls excepted', async () => {
    const before = (await todaysEvents('api_call')).length
    await overview(today(), tokens.user)
    await callRoute(pageViewAction, makeRequest('/api/analytics/pageview', { json: { path: '/' } }))
    await callRoute(meLoader, makeRequest('/api/auth/me', { token: tokens.user }))
    await callRoute(todayLoader, makeRequest('/api/async-image/tasks/today', { token: tokens.user }))
    await callRoute(taskLoader, makeRequest(`/api/async-image/task/${randomUUID()}`, { token: tokens.user }), {
      id: randomUUID(),
    })
    const calls = (await todaysEvents('api_call')).slice(before)
    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({ path: '/api/analytics/overview', details: { method: 'GET', status: 403 } })
  })

  test('the typed helpers land in their arrays of the overview', async () => {
    const { user } = await createTestUser()
    const ip = britishIp
    const proof = {
      id: randomUUID(),
      user_id: user.id,
      payment_method: 'usdt_trc20' as const,
      amount_cents: 1000,
      credit_amount: 200,
    }
    recordRegistration(user.id, ip, 'password')
    recordLogin(user.id, null, 'google')
    recordImageGeneration(user.id, ip, { taskId: randomUUID(), fromTemplate: false })
    recordImageGeneration(user.id, ip, { taskId: randomUUID(), fromTemplate: true, templateId: randomUUID() })
    recordPayment(ip, proof)
    recordCreditPurchase(proof)
    await flushAnalytics()

    const body = (await (await overview(today())).json()) as Overview
    expect(body.userRegisters).toHaveLength(1)
    expect(body.userLogins).toHaveLength(1)
    expect(body.imageGenerations).toHaveLength(2)
    expect(body.templateUses).toHaveLength(1)
    expect(body.creditPurchases).toHaveLength(1)
    expect(body.paymentMethods).toEqual([
      { createdAt: expect.any(String), details: { paymentMethod: 'usdt_trc20', amount: 10 } },
    ])
    const [registration] = (await todaysEvents('user_register')).filter((event) => event.user_id === user.id)
    expect(registration).toMatchObject({ country: 'GB', details: { method: 'password' } })
    const [stored] = await todaysEvents('credit_purchase')
    expect(stored).toMatchObject({
      country: null,
      user_id: user.id,
      details: { paymentProofId: proof.id, paymentMethod: 'usdt_trc20', amount: 10, credits: 200 },
    })
  })

  test('an event the database refuses is dropped alone, and recording never throws', async () => {
    const before = (await todaysEvents('user_login')).length
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    expect(() => recordEvent({ type: 'user_login', userId: randomUUID() })).not.toThrow()
    recordEvent({ type: 'user_login', userId: null })
    await expect(flushAnalytics()).resolves.toBeUndefined()
    errors.mockRestore()
    expect(await todaysEvents('user_login')).toHaveLength(before + 1)
  })
})

describe('/analytics page', () => {
  const open = (query: string, token?: string) =>
    callRoute(analyticsPageLoader, makeRequest(`/analytics${query}`, { token }))

  test('guests are sent to /login and other roles to /', async () => {
    expect((await open('')).headers.get('location')).toMatch(/^\/login/)
    expect((await open('', tokens.user)).headers.get('location')).toBe('/')
    expect((await open('', tokens.admin)).headers.get('location')).toBe('/')
  })

  test('nothing is loaded until a range is submitted; a range button only fills the dates', async () => {
    const first = await (await open('', tokens.superadmin)).json()
    expect(first).toMatchObject({ ...presetRange('week'), preset: 'week', summary: null, error: null })
    const year = await (await open('?range=year&startDate=2025-01-01&endDate=2025-01-01', tokens.superadmin)).json()
    expect(year).toMatchObject({ ...presetRange('year'), summary: null })
  })

  test('a submitted range loads the summary; a bad one shows the reason', async () => {
    const loaded = await (await open('?startDate=2025-03-01&endDate=2025-03-03', tokens.superadmin)).json()
    expect(loaded.summary.counts.imageGenerations).toBe(3)
    const bad = await open('?startDate=2025-03-03&endDate=2025-03-01', tokens.superadmin)
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ summary: null, error: 'endDate must not be before startDate' })
  })
})
