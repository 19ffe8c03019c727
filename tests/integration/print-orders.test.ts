import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { loader as optionsLoader } from '#app/routes/api.prints.options.ts'
import { action as quoteAction } from '#app/routes/api.prints.quote.ts'
import { loader as mockupLoader } from '#app/routes/api.prints.mockup.ts'
import { action as orderAction, loader as ordersLoader } from '#app/routes/api.prints.orders.ts'
import { loader as orderLoader } from '#app/routes/api.prints.orders.$id.ts'
import { action as cancelAction } from '#app/routes/api.prints.orders.$id.cancel.ts'
import { action as callbackAction } from '#app/routes/api.prints.callback.$secret.ts'
import { loader as printFileLoader } from '#app/routes/print-files.$id.ts'
import { sweepPrintOrders } from '#domain/prints/print-lab-orders.server.ts'
import { exportEntries } from '#domain/user-data/export-contents.server.ts'
import { deleteAccount } from '#domain/user-management/account-deletion.server.ts'
import { systemStatus } from '#domain/operator/system-status.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { startProdigiFake, type ProdigiFake } from '#tests/fakes/prodigi.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { balanceAndLedgerSum, creditsOf, withOwnDataDir } from '#tests/helpers/generation.ts'
import { finishedPortrait, scaledCatalogue, testRecipient } from '#tests/helpers/prints.ts'
import { startWebProcess } from '#tests/helpers/web-process.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

// Issue 39: print orders through Prodigi's Print API v4, against its fake (tests/fakes/prodigi.ts),
// a web process the lab downloads print files from and posts callbacks to, and the real worker.

const media = withOwnDataDir()
const SECRET = 'print-callback-secret-0123456789'
// Before anything reads the environment (getDb does).
const fake: ProdigiFake = await startProdigiFake({ catalogue: scaledCatalogue(8) })
Object.assign(process.env, {
  PRODIGI_API_KEY: fake.apiKey,
  PRODIGI_API_URL: fake.baseUrl,
  PRINT_CALLBACK_SECRET: SECRET,
  OWNER_EMAIL: 'owner@example.com',
})
const db = getDb()

let web: Awaited<ReturnType<typeof startWebProcess>>
let worker: ReturnType<typeof startWorker>
// Long enough for a loaded machine's answers, short enough for the lost-answer test's retry.
const workerEnv = () => ({ PUBLIC_URL: web.origin, PRINT_LAB_TIMEOUT_MS: '3000' })

beforeAll(async () => {
  web = await startWebProcess()
  worker = startWorker(workerEnv())
  await worker.ready()
}, 60_000)

afterAll(async () => {
  await worker?.stop()
  await web?.stop()
  await fake.close()
})

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

async function api(
  handler: Parameters<typeof callRoute>[0],
  url: string,
  token: string,
  options: { json?: unknown; params?: Record<string, string> } = {},
) {
  const response = await callRoute(
    handler,
    makeRequest(url, { token, json: options.json, method: options.json === undefined ? 'GET' : 'POST' }),
    options.params,
  )
  const type = response.headers.get('content-type') ?? ''
  return {
    status: response.status,
    headers: response.headers,
    body: (type.includes('json') ? await response.json() : {}) as Json,
    response,
  }
}

const quoteBody = (taskId: string, extra: Json = {}) => ({
  taskId,
  index: 0,
  sku: 'GLOBAL-CAN-8X10',
  attributes: { wrap: 'ImageWrap' },
  copies: 1,
  countryCode: 'GB',
  shippingMethod: 'Standard',
  ...extra,
})

async function customer(credits = 5000) {
  const { user, token } = await createTestUser({ credits })
  const { taskId } = await finishedPortrait(user.id)
  return { user, token, taskId }
}

/** Quotes and orders; `betweenQuoteAndOrder` changes the lab meanwhile. */
async function order(token: string, taskId: string, extra: Json = {}, betweenQuoteAndOrder = () => {}) {
  const quote = await api(quoteAction, '/api/prints/quote', token, { json: quoteBody(taskId, extra) })
  expect(quote.status).toBe(200)
  betweenQuoteAndOrder()
  const placed = await api(orderAction, '/api/prints/orders', token, {
    json: { quoteId: quote.body.quoteId, recipient: testRecipient(quote.body.countryCode) },
  })
  expect(placed.status).toBe(201)
  return { quote: quote.body, order: placed.body.order as { id: string; status: string; credits: number } }
}

const orderRow = (id: string) =>
  db.selectFrom('print_orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
const atLab = (id: string) => waitFor(async () => (await orderRow(id)).lab_order_id, { timeout: 20_000 })
/**
 * How long a refusal may take to arrive: on a loaded machine a call to the lab can outlast
 * PRINT_LAB_TIMEOUT_MS, and its job is then retried after graphile-worker's backoff (about 3 s,
 * then 7 s): two such timeouts take longer than 20 s.
 */
const REFUSAL_WAIT = { timeout: 45_000 }
const labOrdersFor = (id: string) => [...fake.orders.values()].filter((o) => o.idempotencyKey === id)
const refundsOf = (orderId: string) =>
  db
    .selectFrom('credit_transactions')
    .selectAll()
    .where('print_order_id', '=', orderId)
    .where('type', '=', 'earn')
    .execute()
const outbox = () => {
  const dir = path.join(media.dir, 'outbox')
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((file) => fs.readFileSync(path.join(dir, file), 'utf8')) : []
}

test('options come from the lab’s print areas: a size the pixels do not fill says "Make it bigger first"', async () => {
  const { token, taskId } = await customer()
  const { status, body } = await api(optionsLoader, `/api/prints/options?taskId=${taskId}&index=0`, token)
  expect(status).toBe(200)
  const bySku = new Map((body.products as Json[]).map((p) => [p.sku, p]))
  const small = bySku.get('GLOBAL-CAN-8X10')!
  expect(small).toMatchObject({ kind: 'canvas', widthIn: 8, heightIn: 10, available: true, reason: null })
  expect(small.attributes.wrap).toEqual(expect.arrayContaining(['ImageWrap', 'MirrorWrap', 'Black', 'White']))
  // 24×36 with ImageWrap needs (24+3.15)×300/8 by (36+3.15)×300/8 pixels; a 1024² portrait cropped to it has fewer.
  const large = bySku.get('GLOBAL-CAN-24X36')!
  expect(large.available).toBe(false)
  expect(large.reason).toMatch(/^Make it bigger first/)
  expect(bySku.get('GLOBAL-CFP-12X16')!.shipsTo).not.toContain('AU')
  // The lab's product data is cached: a second read asks the lab nothing.
  const productCalls = () => fake.requests.filter((r) => r.path.includes('/products/')).length
  const before = productCalls()
  await api(optionsLoader, `/api/prints/options?taskId=${taskId}&index=0`, token)
  expect(productCalls()).toBe(before)
})

test('a canvas is quoted in credits, ordered once, printed from the exact crop, followed to shipped with one email', async () => {
  const { user, token, taskId } = await customer()
  const quote = await api(quoteAction, '/api/prints/quote', token, { json: quoteBody(taskId) })
  expect(quote.status).toBe(200)
  // The fake's 8×10 canvas costs £12.50 and Standard shipping £7.95; GBP→USD at 1.27, markup 1.6, 20 credits a dollar.
  const entry = fake.catalogue.get('GLOBAL-CAN-8X10')!
  expect(quote.body.cost).toEqual({ items: entry.unitCostGbp.toFixed(2), shipping: '7.95', currency: 'GBP' })
  expect(quote.body.credits).toBe(Math.ceil((entry.unitCostGbp + 7.95) * 1.27 * 1.6 * 20))
  expect(quote.body.delivery).toMatch(/working days/)
  expect(new Date(quote.body.expiresAt).getTime() - Date.now()).toBeGreaterThan(29 * 60_000)

  const mockup = await api(mockupLoader, `/api/prints/mockup?quoteId=${quote.body.quoteId}`, token)
  expect(mockup.status).toBe(200)
  expect((await sharp(Buffer.from(await mockup.response.arrayBuffer())).metadata()).format).toBe('jpeg')
  const stranger = await createTestUser()
  expect((await api(mockupLoader, `/api/prints/mockup?quoteId=${quote.body.quoteId}`, stranger.token)).status).toBe(404)

  const before = await creditsOf(user.id)
  const placed = await api(orderAction, '/api/prints/orders', token, {
    json: { quoteId: quote.body.quoteId, recipient: testRecipient() },
  })
  expect(placed.status).toBe(201)
  expect(placed.body.order).toMatchObject({ status: 'submitted', credits: quote.body.credits })
  expect(await creditsOf(user.id)).toBe(before - quote.body.credits)
  const id = placed.body.order.id as string
  // The same quote cannot make a second order.
  const again = await api(orderAction, '/api/prints/orders', token, {
    json: { quoteId: quote.body.quoteId, recipient: testRecipient() },
  })
  expect(again.status).toBe(404)

  const labId = await atLab(id)
  const [labOrder] = labOrdersFor(id)
  expect(labOrdersFor(id)).toHaveLength(1)
  expect(labOrder).toMatchObject({
    id: labId,
    merchantReference: id,
    callbackUrl: `${web.origin}/api/prints/callback/${SECRET}`,
  })
  expect(labOrder.items[0]).toMatchObject({
    sku: 'GLOBAL-CAN-8X10',
    copies: 1,
    sizing: 'fillPrintArea',
    attributes: { wrap: 'ImageWrap' },
  })
  await fake.idle()
  const check = fake.assetChecks.find((c) => c.orderId === labId)!
  expect(check.problem).toBeNull()
  expect(check.format).toBe('jpeg')
  expect({ width: check.width, height: check.height }).toEqual(check.expected)
  expect(check.md5).toBe((await orderRow(id)).print_file_md5)

  await fake.advance(labId, 'shipped')
  await fake.idle()
  const shipped = await waitFor(
    async () => {
      const read = await api(orderLoader, `/api/prints/orders/${id}`, token, { params: { id } })
      return read.body.order.status === 'shipped' ? read.body.order : null
    },
    { timeout: 20_000 },
  )
  const shipment = fake.orders.get(labId)!.shipments[0]!
  expect(shipped.shipments[0]).toMatchObject({
    status: 'Shipped',
    trackingNumber: shipment.tracking!.number,
    trackingUrl: shipment.tracking!.url,
  })
  const shippedMail = () => outbox().filter((m) => m.includes(shipment.tracking!.number))
  await waitFor(() => shippedMail().length === 1, { timeout: 20_000 })

  await fake.advance(labId, 'complete')
  await fake.idle()
  await waitFor(async () => (await orderRow(id)).status === 'complete', { timeout: 20_000 })
  // A replayed shipment callback changes nothing and sends no second email.
  const replay = fake.callbacks.find((c) => c.orderId === labId && c.event.type.includes('shipment'))!
  const replayed = await api(callbackAction, `/api/prints/callback/${SECRET}`, token, {
    json: replay.event,
    params: { secret: SECRET },
  })
  expect(replayed.status).toBe(200)
  await new Promise((resolve) => setTimeout(resolve, 1500))
  expect((await orderRow(id)).status).toBe('complete')
  expect(shippedMail()).toHaveLength(1)

  const list = await api(ordersLoader, '/api/prints/orders', token)
  expect(list.body.orders.map((o: Json) => o.id)).toEqual([id])
  expect(list.body.orders[0].mockupUrl).toMatch(/^\/media\/prints\/mockups\//)
  expect(await balanceAndLedgerSum(user.id)).toEqual({
    balance: before - quote.body.credits,
    ledgerSum: before - quote.body.credits,
  })
}, 60_000)

test('an answer lost after the lab made the order: the retry gets AlreadyExists and there is one lab order', async () => {
  const { token, taskId } = await customer()
  fake.setFailure('lostAnswer', { times: 1, match: (r) => r.method === 'POST' && /\/orders$/i.test(r.path) })
  const { order: placed } = await order(token, taskId)
  const labId = await atLab(placed.id)
  expect(labOrdersFor(placed.id)).toHaveLength(1)
  const posts = fake.requests.filter(
    (r) => r.method === 'POST' && /\/orders$/i.test(r.path) && (r.body as Json)?.idempotencyKey === placed.id,
  )
  expect(posts.map((r) => r.outcome)).toEqual(['Created', 'AlreadyExists'])
  expect(labId).toBe(labOrdersFor(placed.id)[0]!.id)
}, 60_000)

test('the lab away across a worker restart: the order waits, then is sent once', async () => {
  const { token, taskId } = await customer()
  fake.setFailure('5xx', { match: (r) => r.method === 'POST' && /\/orders$/i.test(r.path) })
  const { order: placed } = await order(token, taskId)
  await waitFor(async () => (await orderRow(placed.id)).last_error, { timeout: 20_000 })
  expect((await orderRow(placed.id)).status).toBe('submitted')
  await worker.stop()
  fake.setFailure(null)
  worker = startWorker(workerEnv())
  await worker.ready()
  await atLab(placed.id)
  expect(labOrdersFor(placed.id)).toHaveLength(1)
}, 60_000)

test('cancelling while the lab allows it refunds once; once in production it is refused and nothing moves', async () => {
  const { user, token, taskId } = await customer()
  const { order: first } = await order(token, taskId)
  const labId = await atLab(first.id)
  const balance = await creditsOf(user.id)
  const cancelled = await api(cancelAction, `/api/prints/orders/${first.id}/cancel`, token, {
    json: {},
    params: { id: first.id },
  })
  expect(cancelled.status).toBe(200)
  expect(cancelled.body.order).toMatchObject({ status: 'cancelled', refunded: true })
  expect(fake.orders.get(labId)!.status.stage).toBe('Cancelled')
  expect(await creditsOf(user.id)).toBe(balance + first.credits)
  const twice = await api(cancelAction, `/api/prints/orders/${first.id}/cancel`, token, {
    json: {},
    params: { id: first.id },
  })
  expect(twice.status).toBe(409)
  await fake.idle()
  await new Promise((resolve) => setTimeout(resolve, 1000))
  expect(await refundsOf(first.id)).toHaveLength(1)

  const { order: second } = await order(token, taskId)
  const secondLab = await atLab(second.id)
  await fake.advance(secondLab, 'inProduction')
  const before = await creditsOf(user.id)
  const late = await api(cancelAction, `/api/prints/orders/${second.id}/cancel`, token, {
    json: {},
    params: { id: second.id },
  })
  expect(late.status).toBe(409)
  expect(late.body.message).toMatch(/can no longer be cancelled/)
  expect(await creditsOf(user.id)).toBe(before)
  expect(await refundsOf(second.id)).toHaveLength(0)
}, 60_000)

test('a file the lab cannot use is refunded once with the reason in words, and the lab order cancelled', async () => {
  const { user, token, taskId } = await customer()
  // The lab's print area changes after the quote, before the order reaches it: the file it
  // downloads no longer matches.
  const entry = fake.catalogue.get('GLOBAL-FAP-12X16')!
  const balance = await creditsOf(user.id)
  const { order: placed } = await order(token, taskId, { sku: 'GLOBAL-FAP-12X16', attributes: {} }, () => {
    entry.product.variants[0]!.printAreaSizes.default!.horizontalResolution += 10
  })
  const labId = await atLab(placed.id)
  await waitFor(async () => (await orderRow(placed.id)).status === 'refused', REFUSAL_WAIT)
  entry.product.variants[0]!.printAreaSizes.default!.horizontalResolution -= 10
  const row = await orderRow(placed.id)
  expect(row.problem).toBe('The print lab could not download the picture to print')
  expect(fake.orders.get(labId)!.status.stage).toBe('Cancelled')
  await fake.idle()
  await new Promise((resolve) => setTimeout(resolve, 1000))
  expect(await refundsOf(placed.id)).toHaveLength(1)
  expect(await creditsOf(user.id)).toBe(balance)
  expect((await refundsOf(placed.id))[0]!.description).toContain('could not download the picture')
}, 90_000)

test('a callback that overtakes the create answer is not lost: the order is re-read once its lab id is stored', async () => {
  const { user, token, taskId } = await customer()
  const entry = fake.catalogue.get('GLOBAL-FAP-12X16')!
  const balance = await creditsOf(user.id)
  // The lab's callback (its download failed) reaches us before we know which lab order it names.
  fake.holdNextCreateAnswer()
  const { order: placed } = await order(token, taskId, { sku: 'GLOBAL-FAP-12X16', attributes: {} }, () => {
    entry.product.variants[0]!.printAreaSizes.default!.horizontalResolution += 10
  })
  const labId = await atLab(placed.id)
  entry.product.variants[0]!.printAreaSizes.default!.horizontalResolution -= 10
  expect(fake.callbacks.filter((callback) => callback.orderId === labId).length).toBeGreaterThan(0)
  await waitFor(async () => (await orderRow(placed.id)).status === 'refused', REFUSAL_WAIT)
  expect((await orderRow(placed.id)).problem).toBe('The print lab could not download the picture to print')
  await fake.idle()
  expect(await refundsOf(placed.id)).toHaveLength(1)
  expect(await creditsOf(user.id)).toBe(balance)
}, 90_000)

test('a payment authorisation needed on the lab account: refunded and the owner emailed', async () => {
  const { token, taskId } = await customer()
  const { order: placed } = await order(token, taskId)
  const labId = await atLab(placed.id)
  await fake.idle()
  fake.orders.get(labId)!.status.issues.push({
    objectId: labId,
    errorCode: 'RequiresPaymentAuthorisation',
    description: 'Payment authorisation required',
    authorisationDetails: {
      authorisationUrl: 'https://example.test/pay',
      paymentDetails: { amount: '20.45', currency: 'GBP' },
    },
  })
  await sweepPrintOrders(db)
  await waitFor(async () => (await orderRow(placed.id)).status === 'refused', { timeout: 45_000 })
  expect(await refundsOf(placed.id)).toHaveLength(1)
  await waitFor(() => outbox().some((m) => m.includes('owner@example.com') && m.includes(placed.id)), {
    timeout: 20_000,
  })
}, 60_000)

test('bad input is refused naming the field, and nothing is charged', async () => {
  const { user, token, taskId } = await customer()
  const balance = await creditsOf(user.id)
  const refusals: [Json, number, string | undefined][] = [
    [{ sku: 'GLOBAL-NOPE-1X1' }, 422, 'sku'],
    [{ attributes: { wrap: 'Gold' } }, 422, 'attributes.wrap'],
    [{ attributes: { glaze: 'Acrylic' } }, 422, 'attributes.glaze'],
    [{ attributes: {} }, 422, 'attributes.wrap'],
    [{ sku: 'GLOBAL-CFP-12X16', attributes: { color: 'black' }, countryCode: 'AU' }, 422, 'countryCode'],
    [{ sku: 'GLOBAL-CAN-24X36' }, 422, 'sku'],
    [{ copies: 0 }, 400, 'copies'],
    [{ shippingMethod: 'Teleport' }, 400, 'shippingMethod'],
    [{ countryCode: 'Narnia' }, 400, 'countryCode'],
  ]
  for (const [extra, status, field] of refusals) {
    const answer = await api(quoteAction, '/api/prints/quote', token, { json: quoteBody(taskId, extra) })
    expect({ extra, status: answer.status, field: answer.body.field }).toEqual({ extra, status, field })
    expect(answer.body.message).toEqual(expect.any(String))
  }
  const other = await customer()
  expect((await api(quoteAction, '/api/prints/quote', token, { json: quoteBody(other.taskId) })).status).toBe(404)
  const { taskId: running } = await finishedPortrait(user.id, { status: 'processing' })
  expect((await api(quoteAction, '/api/prints/quote', token, { json: quoteBody(running) })).status).toBe(409)
  const { taskId: expired } = await finishedPortrait(user.id)
  await db
    .updateTable('generation_tasks')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('id', '=', expired)
    .execute()
  expect((await api(quoteAction, '/api/prints/quote', token, { json: quoteBody(expired) })).status).toBe(409)

  const quote = await api(quoteAction, '/api/prints/quote', token, { json: quoteBody(taskId) })
  const missing = testRecipient()
  missing.address.line1 = ''
  const noLine = await api(orderAction, '/api/prints/orders', token, {
    json: { quoteId: quote.body.quoteId, recipient: missing },
  })
  expect(noLine).toMatchObject({ status: 400, body: { field: 'recipient.address.line1' } })
  const elsewhere = await api(orderAction, '/api/prints/orders', token, {
    json: { quoteId: quote.body.quoteId, recipient: testRecipient('FR') },
  })
  expect(elsewhere).toMatchObject({ status: 422, body: { field: 'recipient.address.countryCode' } })
  await db
    .updateTable('print_quotes')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('id', '=', quote.body.quoteId)
    .execute()
  const late = await api(orderAction, '/api/prints/orders', token, {
    json: { quoteId: quote.body.quoteId, recipient: testRecipient() },
  })
  expect(late).toMatchObject({ status: 409, body: { field: 'quoteId' } })
  expect(await creditsOf(user.id)).toBe(balance)

  const poor = await customer(10)
  const cheap = await api(quoteAction, '/api/prints/quote', poor.token, { json: quoteBody(poor.taskId) })
  const unpaid = await api(orderAction, '/api/prints/orders', poor.token, {
    json: { quoteId: cheap.body.quoteId, recipient: testRecipient() },
  })
  expect(unpaid.status).toBe(402)
  expect(await db.selectFrom('print_orders').select('id').where('user_id', '=', poor.user.id).execute()).toHaveLength(0)
  expect(await creditsOf(poor.user.id)).toBe(10)
}, 60_000)

test('a sixth open order is refused with 409 and not charged', async () => {
  const { user, token, taskId } = await customer(50_000)
  fake.setFailure('5xx', { match: (r) => r.method === 'POST' && /\/orders$/i.test(r.path) })
  try {
    for (let i = 0; i < 5; i++) await order(token, taskId)
    const balance = await creditsOf(user.id)
    const quote = await api(quoteAction, '/api/prints/quote', token, { json: quoteBody(taskId) })
    const sixth = await api(orderAction, '/api/prints/orders', token, {
      json: { quoteId: quote.body.quoteId, recipient: testRecipient() },
    })
    expect(sixth.status).toBe(409)
    expect(sixth.body.message).toMatch(/5 print orders/)
    expect(await creditsOf(user.id)).toBe(balance)
  } finally {
    fake.setFailure(null)
  }
}, 60_000)

test('callbacks: another secret is a 404; a forged event is only a hint and changes nothing', async () => {
  const { token, taskId } = await customer()
  const { order: placed } = await order(token, taskId)
  const labId = await atLab(placed.id)
  await fake.idle()
  const wrong = await api(callbackAction, '/api/prints/callback/guess', token, {
    json: {},
    params: { secret: 'guess' },
  })
  expect(wrong.status).toBe(404)
  const forged = {
    specversion: '1.0',
    type: 'com.prodigi.order.status.stage.changed#Complete',
    subject: labId,
    data: { order: { id: labId, status: { stage: 'Complete' } } },
  }
  expect(
    (await api(callbackAction, `/api/prints/callback/${SECRET}`, token, { json: forged, params: { secret: SECRET } }))
      .status,
  ).toBe(200)
  expect(
    (
      await api(callbackAction, `/api/prints/callback/${SECRET}`, token, {
        json: { subject: 'ord_1' },
        params: { secret: SECRET },
      })
    ).status,
  ).toBe(200)
  // The job read the lab's order, which is still at the lab.
  await waitFor(async () => (await orderRow(placed.id)).synced_at, { timeout: 20_000 })
  expect((await orderRow(placed.id)).status).toBe('at_lab')
}, 60_000)

test('the sweep re-reads an order whose callback was lost', async () => {
  const { token, taskId } = await customer()
  const { order: placed } = await order(token, taskId)
  const labId = await atLab(placed.id)
  await fake.idle()
  const lab = fake.orders.get(labId)!
  const url = lab.callbackUrl
  lab.callbackUrl = null // the lab's callback never arrives
  await fake.advance(labId, 'shipped')
  expect((await orderRow(placed.id)).status).toBe('at_lab')
  lab.callbackUrl = url
  expect(await sweepPrintOrders(db)).toBeGreaterThan(0)
  await waitFor(async () => (await orderRow(placed.id)).status === 'shipped', { timeout: 20_000 })
}, 60_000)

test('the print file is served only at its signed link', async () => {
  const { token, taskId } = await customer()
  const { order: placed } = await order(token, taskId)
  await atLab(placed.id)
  const url = new URL(fake.orders.get((await orderRow(placed.id)).lab_order_id!)!.items[0]!.assets[0]!.url)
  const get = (search: string) =>
    callRoute(printFileLoader, makeRequest(`/print-files/${placed.id}${search}`), { id: placed.id })
  expect((await get(url.search)).status).toBe(200)
  expect((await get(url.search.replace(/signature=[^&]+/, 'signature=forged'))).status).toBe(403)
  const expires = Number(url.searchParams.get('expires'))
  expect(expires - Date.now() / 1000).toBeGreaterThan(13.9 * 86400)
}, 60_000)

test('the data export lists orders; deleting the account keeps the rows without the address', async () => {
  const { user, token, taskId } = await customer()
  const { order: placed } = await order(token, taskId)
  await atLab(placed.id)
  const entries = await exportEntries(db, user.id)
  const file = entries.find((e) => e.name === 'print-orders.json') as { bytes: Uint8Array }
  const exported = JSON.parse(Buffer.from(file.bytes).toString()) as Json[]
  expect(exported[0]).toMatchObject({ id: placed.id, recipient: { name: 'Ada Lovelace' } })
  await deleteAccount(db, user.id)
  const row = await orderRow(placed.id)
  expect(row).toMatchObject({ user_id: null, recipient: null, print_file_key: null })
}, 60_000)

test('operators: /system-status names the lab and its last answer; the metric counts statuses', async () => {
  const status = await systemStatus(db)
  expect(status.printLab.mode).toBe('custom')
  expect(status.printLab.summary).toMatch(/^prodigi · custom .* last answer \d{3}/)
  const metrics = await getMetrics().registry.getSingleMetricAsString('pawtrait_print_orders_total')
  expect(metrics).toMatch(/pawtrait_print_orders_total\{status="submitted"\} [1-9]/)
})
