/**
 * A local stand-in for the part of Stripe's API that Checkout uses, speaking its wire format as the
 * API reference and the official `stripe` package (stripe-node 23.x) describe it (sources: NOTES.md):
 * - POST /v1/checkout/sessions, form-encoded with bracketed keys (`line_items[0][price_data][currency]`),
 *   the secret key as `Authorization: Bearer sk_…` (or HTTP Basic, as curl -u sends it);
 * - GET /v1/checkout/sessions/{id} (with `expand[]=line_items`), GET …/{id}/line_items,
 *   POST …/{id}/expire;
 * - the hosted page at each session's `url`: a plain HTML form whose Pay button (a form POST, no
 *   JavaScript) completes the session (status complete, payment_status paid, a `pi_…` PaymentIntent and
 *   a `ch_…` Charge), delivers a signed `checkout.session.completed` event to the webhook endpoint and
 *   redirects (303) to success_url with {CHECKOUT_SESSION_ID} replaced.
 * Events are signed as Stripe signs them: `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`
 * keyed with the whole `whsec_…` string. Like Stripe it answers a missing or wrong key with 401, a
 * missing, unknown or invalid parameter with 400 naming it in `param`, an unsupported currency, a total
 * under the currency's minimum (50 cents for usd), an unknown session with 404 resource_missing, and an
 * Idempotency-Key reused with other parameters with 400 idempotency_error (the same parameters replay
 * the first answer with `Idempotent-Replayed: true`). Errors are `{ error: { type, code, message, param,
 * doc_url } }`. Only `mode=payment` on the hosted page is supported; other modes are refused by name.
 *
 * Point the official package at it with `new Stripe(fake.secretKey, fake.clientOptions)` (host, port,
 * protocol 'http'), or give a process `fake.env`.
 */
import { createHmac, randomBytes } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { type FakeRequest, sendHtml, sendJson, startHttpFake, waitUnlessClosed } from './http-fake.ts'

/** The API version stripe-node 23.1.0 pins (its `apiVersion.js`); events carry it. */
export const STRIPE_FAKE_API_VERSION = '2026-10-28.endive'

/**
 * How the fake misbehaves on API calls (/v1/…); the hosted page keeps working.
 * - `5xx`: 500 api_error (the SDK retries 5xx, maxNetworkRetries times);
 * - `slow`: answers only after `slowMs`, unless the client gave up first;
 * - `down`: the connection is cut without an answer, as when Stripe is unreachable;
 * - `rate_limit`: 429 with code rate_limit.
 */
export type StripeFailureMode = 'none' | '5xx' | 'slow' | 'down' | 'rate_limit'

/**
 * When the event of a completed payment reaches the webhook endpoint, relative to the browser's
 * redirect to success_url: `before_redirect` (awaited first), `after_redirect` (sent once the 303 is
 * out, so the two race), or `manual` (queued until `flushWebhooks()`; a webhook that is late).
 */
export type StripeDeliveryMode = 'before_redirect' | 'after_redirect' | 'manual'

export interface StripeFakeOptions {
  secretKey?: string
  webhookSecret?: string
  /** Where events are POSTed (the app's /api/stripe/webhook); settable later with setWebhookUrl. */
  webhookUrl?: string | null
  deliveryMode?: StripeDeliveryMode
  /** How long `slow` stalls, 5 s unless given. */
  slowMs?: number
  port?: number
}

export interface RecordedStripeRequest {
  method: string
  path: string
  query: string
  authorization: string | undefined
  stripeVersion: string | undefined
  idempotencyKey: string | undefined
  userAgent: string | undefined
  contentType: string | undefined
  /** The form body decoded into nested objects and arrays, as Stripe reads it. */
  params: Record<string, unknown>
  rawBody: string
  /** The status answered (0 when the connection was cut or the answer is still pending). */
  status: number
}

export interface StripeEvent {
  id: string
  object: 'event'
  api_version: string
  created: number
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> }
  livemode: false
  pending_webhooks: number
  request: { id: string | null; idempotency_key: string | null }
  type: string
}

export interface WebhookDelivery {
  event: StripeEvent
  /** The exact bytes sent, and their Stripe-Signature header. */
  body: string
  signature: string
  /** The endpoint's answer: 0 when it could not be reached or no endpoint is set. */
  status: number
  responseBody: string
  error?: string
}

export interface FakeCheckoutSession extends Record<string, unknown> {
  id: string
  object: 'checkout.session'
  status: 'open' | 'complete' | 'expired'
  payment_status: 'unpaid' | 'paid' | 'no_payment_required'
  amount_total: number
  currency: string
  payment_intent: string | null
  client_reference_id: string | null
  metadata: Record<string, string>
  success_url: string
  cancel_url: string | null
  url: string | null
  created: number
  expires_at: number
}

export interface StripeFake {
  /** http://127.0.0.1:PORT, the value for STRIPE_API_URL. */
  url: string
  secretKey: string
  webhookSecret: string
  /** The official client's options that send its requests here. */
  clientOptions: { host: string; port: number; protocol: 'http' }
  env: Record<string, string>
  sessions: Map<string, FakeCheckoutSession>
  charges: Map<string, Record<string, unknown>>
  /** Every API request (not the hosted page), in order. */
  requests: RecordedStripeRequest[]
  /** Every event sent or attempted, in order. */
  deliveries: WebhookDelivery[]
  setWebhookUrl(url: string | null): void
  setDeliveryMode(mode: StripeDeliveryMode): void
  setFailure(mode: StripeFailureMode): void
  /** Changes the key accepted (a rolled key: the configured one is refused from now on). */
  setSecretKey(key: string): void
  /** What the Pay button does, without a browser; answers the success_url to go to. */
  pay(sessionId: string): Promise<string>
  /** Delivers the events queued in `manual` mode. */
  flushWebhooks(): Promise<WebhookDelivery[]>
  /** Sends a signed event of any type about `object` (a session, charge, …). */
  deliver(type: string, object: Record<string, unknown>, previous?: Record<string, unknown>): Promise<WebhookDelivery>
  /**
   * A delayed payment method: completes an open session unpaid (checkout.session.completed with
   * payment_status unpaid), then settles it (checkout.session.async_payment_succeeded or _failed).
   */
  payAsync(sessionId: string, succeed: boolean): Promise<WebhookDelivery[]>
  /** Refunds `amount` cents (the rest of the charge unless given): charge.refunded. */
  refund(sessionId: string, amount?: number): Promise<WebhookDelivery>
  /** The cardholder disputes the whole charge: charge.dispute.created. */
  dispute(sessionId: string, reason?: string): Promise<WebhookDelivery>
  /** Expires an open session as Stripe does after expires_at: checkout.session.expired. */
  expire(sessionId: string): Promise<WebhookDelivery>
  close(): Promise<void>
}

/**
 * The Stripe-Signature value for `payload`: `t=<timestamp>,v1=<hex HMAC-SHA256("t.payload")>`.
 * Exported so a test can sign with a wrong secret or an old timestamp.
 */
export function stripeSignatureHeader(payload: string, secret: string, timestamp = unixNow()): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex')
  return `t=${timestamp},v1=${v1}`
}

/**
 * Decodes an application/x-www-form-urlencoded body the way Stripe reads it: `a[b][c]=v` nests,
 * numeric indexes (`line_items[0]`) make arrays, and an empty value is an empty string (which Stripe
 * takes as "unset").
 */
function parseStripeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {}
  for (const [key, value] of new URLSearchParams(body)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key)
    const path = match ? [match[1], ...[...match[2].matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1])] : [key]
    let node: Record<string, unknown> = root
    path.forEach((segment, index) => {
      // `a[]=x&a[]=y` appends, as Rack-style parsers do.
      const name = segment === '' ? String(Object.keys(node).length) : segment
      if (index === path.length - 1) node[name] = value
      else {
        const next = node[name]
        node = (next && typeof next === 'object' ? next : (node[name] = {})) as Record<string, unknown>
      }
    })
  }
  return arraysFromIndexes(root) as Record<string, unknown>
}

function arraysFromIndexes(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value
  const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, arraysFromIndexes(v)] as const)
  const numeric = entries.length > 0 && entries.every(([k]) => /^\d+$/.test(k))
  if (!numeric) return Object.fromEntries(entries)
  return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v)
}

/** Zero-decimal currencies: the amount is in whole units (docs.stripe.com/currencies). */
const ZERO_DECIMAL = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
])

/** Minimum charge per currency, in minor units (docs.stripe.com/currencies#minimum-and-maximum-charge-amounts). */
const MINIMUM_CHARGE: Record<string, number> = {
  usd: 50,
  aed: 200,
  aud: 50,
  bgn: 100,
  brl: 50,
  cad: 50,
  chf: 50,
  czk: 1500,
  dkk: 250,
  eur: 50,
  gbp: 30,
  hkd: 400,
  huf: 17500,
  inr: 50,
  jpy: 50,
  mxn: 1000,
  myr: 200,
  nok: 300,
  nzd: 50,
  pln: 200,
  ron: 200,
  sek: 300,
  sgd: 50,
  thb: 1000,
}

/** The presentment currencies the fake takes: the minimum table plus other common ones (all 3 letters, lowercase). */
const SUPPORTED_CURRENCIES = new Set([
  ...Object.keys(MINIMUM_CHARGE),
  ...ZERO_DECIMAL,
  'ars',
  'cny',
  'cop',
  'egp',
  'idr',
  'ils',
  'isk',
  'kes',
  'mad',
  'ngn',
  'php',
  'pkr',
  'qar',
  'sar',
  'try',
  'twd',
  'uah',
  'zar',
])

/** "Amount must be no more than $999,999.99": eight digits in minor units. */
const MAXIMUM_AMOUNT = 99_999_999

const CREATE_PARAMS = new Set([
  'adaptive_pricing',
  'after_expiration',
  'allow_promotion_codes',
  'automatic_tax',
  'billing_address_collection',
  'cancel_url',
  'client_reference_id',
  'consent_collection',
  'currency',
  'custom_fields',
  'custom_text',
  'customer',
  'customer_creation',
  'customer_email',
  'customer_update',
  'discounts',
  'expand',
  'expires_at',
  'invoice_creation',
  'line_items',
  'locale',
  'metadata',
  'mode',
  'payment_intent_data',
  'payment_method_collection',
  'payment_method_configuration',
  'payment_method_options',
  'payment_method_types',
  'phone_number_collection',
  'submit_type',
  'success_url',
  'tax_id_collection',
  'ui_mode',
])
const LINE_ITEM_PARAMS = new Set(['adjustable_quantity', 'metadata', 'price', 'price_data', 'quantity', 'tax_rates'])
const PRICE_DATA_PARAMS = new Set([
  'currency',
  'product',
  'product_data',
  'recurring',
  'tax_behavior',
  'unit_amount',
  'unit_amount_decimal',
])
const PRODUCT_DATA_PARAMS = new Set([
  'description',
  'images',
  'metadata',
  'name',
  'tax_code',
  'tax_details',
  'unit_label',
])

interface ApiError {
  status: number
  type: string
  message: string
  code?: string
  param?: string
}

class StripeRefusal extends Error {
  readonly error: ApiError
  constructor(error: ApiError) {
    super(error.message)
    this.error = error
  }
}

const refuse = (message: string, param?: string, code?: string, status = 400): never => {
  throw new StripeRefusal({ status, type: 'invalid_request_error', message, param, code })
}
const missing = (param: string): never => refuse(`Missing required param: ${param}.`, param, 'parameter_missing')
const unknownParam = (param: string): never =>
  refuse(`Received unknown parameter: ${param}`, param, 'parameter_unknown')

function errorBody(error: ApiError) {
  return {
    error: {
      ...(error.code
        ? { code: error.code, doc_url: `https://stripe.com/docs/error-codes/${error.code.replaceAll('_', '-')}` }
        : {}),
      message: error.message,
      ...(error.param ? { param: error.param } : {}),
      type: error.type,
    },
  }
}

export async function startStripeFake(options: StripeFakeOptions = {}): Promise<StripeFake> {
  let secretKey = options.secretKey ?? 'sk_test_fake_4eC39HqLyjWDarjtT1zdp7dc'
  const webhookSecret = options.webhookSecret ?? 'whsec_fake_test_secret_0123456789abcdef'
  let webhookUrl = options.webhookUrl ?? null
  let deliveryMode: StripeDeliveryMode = options.deliveryMode ?? 'before_redirect'
  let failure: StripeFailureMode = 'none'
  const sessions = new Map<string, FakeCheckoutSession>()
  const lineItems = new Map<string, Record<string, unknown>[]>()
  const charges = new Map<string, Record<string, unknown>>()
  const intents = new Map<string, Record<string, unknown>>()
  const requests: RecordedStripeRequest[] = []
  const deliveries: WebhookDelivery[] = []
  const queued: StripeEvent[] = []
  /** Idempotency-Key → the first request's endpoint, parameters and (once answered) answer. */
  const idempotent = new Map<string, { endpoint: string; params: string; answer?: { status: number; body: unknown } }>()
  let baseUrl = ''

  const server = await startHttpFake(
    async (request, response) => {
      if (request.path.startsWith('/c/pay/')) return hostedPage(request, response)
      if (!request.path.startsWith('/v1/')) return sendHtml(response, 404, '<!doctype html><title>Not found</title>')
      const rawBody = request.body.toString('utf8')
      const record: RecordedStripeRequest = {
        method: request.method,
        path: request.path,
        query: request.query.toString(),
        authorization: request.headers.authorization,
        stripeVersion: header(request, 'stripe-version'),
        idempotencyKey: header(request, 'idempotency-key'),
        userAgent: header(request, 'user-agent'),
        contentType: header(request, 'content-type'),
        params: request.method === 'GET' ? parseStripeForm(request.query.toString()) : parseStripeForm(rawBody),
        rawBody,
        status: 0,
      }
      requests.push(record)
      const requestId = `req_${randomId(14)}`
      response.setHeader('request-id', requestId)
      response.setHeader('stripe-version', record.stripeVersion ?? STRIPE_FAKE_API_VERSION)
      const answer = (status: number, body: unknown) => {
        record.status = status
        sendJson(response, status, body)
      }

      switch (failure) {
        case 'down':
          response.socket?.destroy()
          return
        case '5xx':
          return answer(500, errorBody({ status: 500, type: 'api_error', message: 'An unknown error occurred' }))
        case 'rate_limit':
          return answer(
            429,
            errorBody({
              status: 429,
              type: 'invalid_request_error',
              code: 'rate_limit',
              message:
                'Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.',
            }),
          )
        case 'slow':
          await waitUnlessClosed(response, options.slowMs ?? 5_000)
          if (response.destroyed || response.socket?.destroyed) return
          break
        case 'none':
          break
      }

      const auth = authProblem(request.headers.authorization, secretKey)
      if (auth) return answer(401, errorBody({ status: 401, type: 'invalid_request_error', message: auth }))

      // Stripe keys idempotency on POSTs only (GET and DELETE are idempotent by definition).
      const key = request.method === 'POST' ? record.idempotencyKey : undefined
      const endpoint = `${request.method} ${request.path}`
      const canonical = JSON.stringify(sortKeys(record.params))
      if (key !== undefined) {
        const earlier = idempotent.get(key)
        if (earlier && earlier.endpoint !== endpoint) {
          return answer(
            400,
            errorBody({
              status: 400,
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${request.path}' vs '${earlier.endpoint.split(' ')[1]}'). Try using a key other than '${key}' if you meant to execute a different request.`,
            }),
          )
        }
        if (earlier && earlier.params !== canonical) {
          return answer(
            400,
            errorBody({
              status: 400,
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
            }),
          )
        }
        if (earlier?.answer) {
          response.setHeader('idempotent-replayed', 'true')
          response.setHeader('idempotency-key', key)
          return answer(earlier.answer.status, earlier.answer.body)
        }
        if (earlier) {
          return answer(
            409,
            errorBody({
              status: 409,
              type: 'idempotency_error',
              code: 'idempotency_key_in_use',
              message: `There is currently another in-progress request using this Stripe token (probably, your API key or an idempotency key). Please try again in a few seconds.`,
            }),
          )
        }
        response.setHeader('idempotency-key', key)
      }

      try {
        if (request.method === 'POST' && !/^application\/x-www-form-urlencoded\b/i.test(record.contentType ?? '')) {
          if (rawBody.length > 0) {
            refuse(
              'Invalid request: Stripe API v1 requests take application/x-www-form-urlencoded bodies (as the official libraries send them).',
            )
          }
        }
        // Validation happens before execution starts, so (as Stripe documents) its refusals are not saved.
        const operation = route(request.method, request.path, record.params)
        if (key !== undefined) idempotent.set(key, { endpoint, params: canonical })
        const body = operation()
        if (key !== undefined) idempotent.set(key, { endpoint, params: canonical, answer: { status: 200, body } })
        return answer(200, body)
      } catch (error) {
        if (!(error instanceof StripeRefusal)) throw error
        return answer(error.error.status, errorBody(error.error))
      }
    },
    { port: options.port },
  )
  baseUrl = server.url

  /** Validates a request and answers the operation to run, or throws its refusal. */
  function route(method: string, path: string, params: Record<string, unknown>): () => unknown {
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const session = validateCreate(params)
      return () => {
        const { items, ...rest } = session
        const stored = rest as FakeCheckoutSession
        sessions.set(stored.id, stored)
        lineItems.set(stored.id, items)
        return withExpansions(stored, params.expand)
      }
    }
    const one = /^\/v1\/checkout\/sessions\/([^/]+)(\/line_items|\/expire)?$/.exec(path)
    if (one) {
      const id = decodeURIComponent(one[1])
      const session = sessions.get(id)
      if (!session) refuse(`No such checkout.session: '${id}'`, 'id', 'resource_missing', 404)
      const found = session as FakeCheckoutSession
      if (method === 'GET' && !one[2]) {
        checkExpand(params.expand)
        return () => withExpansions(found, params.expand)
      }
      if (method === 'GET' && one[2] === '/line_items') return () => lineItemList(found.id)
      if (method === 'POST' && one[2] === '/expire') {
        if (found.status !== 'open') {
          refuse(
            `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${found.status}".`,
          )
        }
        return () => {
          expireSession(found)
          return withExpansions(found, undefined)
        }
      }
    }
    return refuse(
      `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
      undefined,
      undefined,
      404,
    )
  }

  function validateCreate(params: Record<string, unknown>) {
    for (const name of Object.keys(params)) if (!CREATE_PARAMS.has(name)) unknownParam(name)
    const mode = params.mode
    if (mode === undefined || mode === '') missing('mode')
    if (!['payment', 'setup', 'subscription'].includes(String(mode))) {
      refuse('Invalid mode: must be one of payment, setup, or subscription', 'mode')
    }
    if (mode !== 'payment') refuse(`The Stripe fake only supports mode=payment (got ${String(mode)}).`, 'mode')
    const uiMode = params.ui_mode ?? 'hosted_page'
    if (!['hosted_page', 'hosted', 'embedded_page', 'elements', 'form'].includes(String(uiMode))) {
      refuse('Invalid ui_mode: must be one of hosted_page, embedded_page, elements, or form', 'ui_mode')
    }
    if (uiMode !== 'hosted_page' && uiMode !== 'hosted') {
      refuse(`The Stripe fake only serves hosted sessions (got ui_mode=${String(uiMode)}).`, 'ui_mode')
    }
    const successUrl = stringParam(params, 'success_url')
    if (!successUrl) missing('success_url')
    checkUrl(successUrl!, 'success_url')
    const cancelUrl = stringParam(params, 'cancel_url')
    if (cancelUrl) checkUrl(cancelUrl, 'cancel_url')

    const rawItems = params.line_items
    if (rawItems === undefined || rawItems === '') missing('line_items')
    if (!Array.isArray(rawItems)) refuse('Invalid array', 'line_items')
    const itemsIn = rawItems as unknown[]
    if (itemsIn.length === 0) missing('line_items')
    if (itemsIn.length > 100) refuse('You may only specify up to 100 line items in `payment` mode.', 'line_items')
    let currency: string | null = stringParam(params, 'currency')?.toLowerCase() ?? null
    if (currency && !SUPPORTED_CURRENCIES.has(currency)) invalidCurrency(currency, 'currency')
    const items = itemsIn.map((raw, index) => {
      const at = `line_items[${index}]`
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) refuse('Invalid object', at)
      const item = raw as Record<string, unknown>
      for (const name of Object.keys(item)) if (!LINE_ITEM_PARAMS.has(name)) unknownParam(`${at}[${name}]`)
      if (item.price !== undefined && item.price_data !== undefined) {
        refuse('You may only specify one of these parameters: price, price_data.', `${at}[price]`)
      }
      if (typeof item.price === 'string') refuse(`No such price: '${item.price}'`, `${at}[price]`, 'resource_missing')
      if (item.price_data === undefined) {
        refuse('You must provide either price or price_data for each line item when using prices.', at)
      }
      const priceData = objectParam(item.price_data, `${at}[price_data]`)
      for (const name of Object.keys(priceData)) {
        if (!PRICE_DATA_PARAMS.has(name)) unknownParam(`${at}[price_data][${name}]`)
      }
      if (priceData.recurring !== undefined) {
        refuse('You must use `subscription` mode for recurring prices.', `${at}[price_data][recurring]`)
      }
      const itemCurrency = stringParam(priceData, 'currency')?.toLowerCase()
      if (!itemCurrency) missing(`${at}[price_data][currency]`)
      if (!SUPPORTED_CURRENCIES.has(itemCurrency!)) invalidCurrency(itemCurrency!, `${at}[price_data][currency]`)
      if (currency && currency !== itemCurrency) {
        refuse('All line items must use the same currency as the Checkout Session.', `${at}[price_data][currency]`)
      }
      currency = itemCurrency!
      if (priceData.product !== undefined) {
        refuse(`No such product: '${String(priceData.product)}'`, `${at}[price_data][product]`, 'resource_missing')
      }
      if (priceData.product_data === undefined) missing(`${at}[price_data][product_data]`)
      const product = objectParam(priceData.product_data, `${at}[price_data][product_data]`)
      for (const name of Object.keys(product)) {
        if (!PRODUCT_DATA_PARAMS.has(name)) unknownParam(`${at}[price_data][product_data][${name}]`)
      }
      const name = stringParam(product, 'name')
      if (!name) missing(`${at}[price_data][product_data][name]`)
      if (priceData.unit_amount_decimal !== undefined) {
        refuse('The Stripe fake takes unit_amount only.', `${at}[price_data][unit_amount_decimal]`)
      }
      if (priceData.unit_amount === undefined) missing(`${at}[price_data][unit_amount]`)
      const unitAmount = integerParam(priceData.unit_amount, `${at}[price_data][unit_amount]`)
      if (unitAmount < 0) {
        refuse(
          'This value must be greater than or equal to 0.',
          `${at}[price_data][unit_amount]`,
          'parameter_invalid_integer',
        )
      }
      if (item.quantity === undefined) missing(`${at}[quantity]`)
      const quantity = integerParam(item.quantity, `${at}[quantity]`)
      if (quantity < 1) {
        refuse('This value must be greater than or equal to 1.', `${at}[quantity]`, 'parameter_invalid_integer')
      }
      return { name: name!, description: stringParam(product, 'description'), unitAmount, quantity }
    })
    const total = items.reduce((sum, item) => sum + item.unitAmount * item.quantity, 0)
    // Currencies outside the table: the usd minimum as a rough stand-in.
    const minimum = MINIMUM_CHARGE[currency!] ?? 50
    if (total < minimum) {
      refuse(
        `The Checkout Session's total amount due must add up to at least ${formatMoney(minimum, currency!)}.`,
        undefined,
        'amount_too_small',
      )
    }
    if (total > MAXIMUM_AMOUNT) {
      refuse(
        `The Checkout Session's total amount due must be no more than ${formatMoney(MAXIMUM_AMOUNT, currency!)}.`,
        undefined,
        'amount_too_large',
      )
    }

    const clientReferenceId = stringParam(params, 'client_reference_id')
    if (clientReferenceId !== null && clientReferenceId.length > 200) {
      refuse('Invalid string: must be at most 200 characters', 'client_reference_id', 'string_length_exceeds_maximum')
    }
    const metadata = metadataParam(params.metadata, 'metadata')
    const created = unixNow()
    let expiresAt = created + 24 * 3600
    if (params.expires_at !== undefined) {
      expiresAt = integerParam(params.expires_at, 'expires_at')
      if (expiresAt < created + 30 * 60 || expiresAt > created + 24 * 3600) {
        refuse(
          'The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.',
          'expires_at',
        )
      }
    }
    checkExpand(params.expand)
    const methods = params.payment_method_types
    if (methods !== undefined && (!Array.isArray(methods) || methods.some((m) => typeof m !== 'string'))) {
      refuse('Invalid array', 'payment_method_types')
    }

    const id = `cs_test_${randomId(58)}`
    return {
      id,
      object: 'checkout.session' as const,
      adaptive_pricing: null,
      after_expiration: null,
      allow_promotion_codes: null,
      amount_subtotal: total,
      amount_total: total,
      automatic_tax: { enabled: false, liability: null, status: null },
      billing_address_collection: null,
      cancel_url: cancelUrl,
      client_reference_id: clientReferenceId,
      client_secret: null,
      consent: null,
      consent_collection: null,
      created,
      currency: currency!,
      custom_fields: [],
      custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
      customer: null,
      customer_creation: 'if_required',
      customer_details: null,
      customer_email: stringParam(params, 'customer_email'),
      discounts: [],
      expires_at: expiresAt,
      invoice: null,
      invoice_creation: null,
      livemode: false,
      locale: stringParam(params, 'locale'),
      metadata,
      mode: 'payment',
      payment_intent: null,
      payment_link: null,
      payment_method_collection: 'if_required',
      payment_method_options: {},
      payment_method_types: (methods as string[] | undefined) ?? ['card'],
      payment_status: 'unpaid' as const,
      recovered_from: null,
      setup_intent: null,
      shipping_address_collection: null,
      shipping_cost: null,
      shipping_options: [],
      status: 'open' as const,
      submit_type: null,
      subscription: null,
      success_url: successUrl!,
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
      ui_mode: 'hosted_page',
      url: `${baseUrl}/c/pay/${id}`,
      items: items.map((item) => ({
        id: `li_${randomId(24)}`,
        object: 'item',
        amount_discount: 0,
        amount_subtotal: item.unitAmount * item.quantity,
        amount_tax: 0,
        amount_total: item.unitAmount * item.quantity,
        currency: currency!,
        description: item.name,
        price: {
          id: `price_${randomId(24)}`,
          object: 'price',
          active: false,
          currency: currency!,
          livemode: false,
          product: `prod_${randomId(14)}`,
          type: 'one_time',
          unit_amount: item.unitAmount,
        },
        quantity: item.quantity,
      })),
    }
  }

  function lineItemList(sessionId: string) {
    return {
      object: 'list',
      data: lineItems.get(sessionId) ?? [],
      has_more: false,
      url: `/v1/checkout/sessions/${sessionId}/line_items`,
    }
  }

  function withExpansions(session: FakeCheckoutSession, expand: unknown) {
    const copy: Record<string, unknown> = structuredClone(session)
    const list = Array.isArray(expand) ? expand : []
    if (list.includes('line_items')) copy.line_items = lineItemList(session.id)
    return copy
  }

  function checkExpand(expand: unknown) {
    if (expand === undefined) return
    if (!Array.isArray(expand)) refuse('Invalid array', 'expand')
    for (const field of expand as unknown[]) {
      if (field !== 'line_items') refuse(`This property cannot be expanded (${String(field)}).`, 'expand')
    }
  }

  // ---- payments ---------------------------------------------------------------------------------

  function openSession(sessionId: string): FakeCheckoutSession {
    const session = sessions.get(sessionId)
    if (!session) throw new Error(`Stripe fake: no session ${sessionId}`)
    return session
  }

  /** The customer submits the form: the PaymentIntent and (for a card) the Charge, the session completes. */
  function complete(session: FakeCheckoutSession, method: 'card' | 'delayed', email: string) {
    const intentId = `pi_${randomId(24)}`
    const chargeId = `ch_${randomId(24)}`
    const created = unixNow()
    const paid = method === 'card'
    intents.set(intentId, {
      id: intentId,
      object: 'payment_intent',
      amount: session.amount_total,
      amount_received: paid ? session.amount_total : 0,
      currency: session.currency,
      latest_charge: chargeId,
      livemode: false,
      metadata: {},
      status: paid ? 'succeeded' : 'processing',
    })
    charges.set(chargeId, {
      id: chargeId,
      object: 'charge',
      amount: session.amount_total,
      amount_captured: paid ? session.amount_total : 0,
      amount_refunded: 0,
      balance_transaction: paid ? `txn_${randomId(24)}` : null,
      billing_details: { address: null, email, name: null, phone: null },
      captured: paid,
      created,
      currency: session.currency,
      customer: null,
      description: null,
      disputed: false,
      failure_code: null,
      failure_message: null,
      livemode: false,
      metadata: {},
      paid,
      payment_intent: intentId,
      payment_method: `pm_${randomId(24)}`,
      payment_method_details: paid
        ? { type: 'card', card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034, country: 'US' } }
        : { type: 'us_bank_account', us_bank_account: { bank_name: 'STRIPE TEST BANK', last4: '6789' } },
      receipt_url: null,
      refunded: false,
      status: paid ? 'succeeded' : 'pending',
    })
    session.status = 'complete'
    session.payment_status = paid ? 'paid' : 'unpaid'
    session.payment_intent = intentId
    session.url = null
    session.customer_details = { address: null, email, name: null, phone: null, tax_exempt: 'none', tax_ids: [] }
  }

  function chargeOf(session: FakeCheckoutSession): Record<string, unknown> {
    const intent = session.payment_intent ? intents.get(session.payment_intent) : undefined
    const charge = intent ? charges.get(String(intent.latest_charge)) : undefined
    if (!charge) throw new Error(`Stripe fake: session ${session.id} has no charge (not paid yet)`)
    return charge
  }

  function expireSession(session: FakeCheckoutSession) {
    session.status = 'expired'
    session.url = null
    queueOrSend(makeEvent('checkout.session.expired', session))
  }

  function successUrlOf(session: FakeCheckoutSession): string {
    return session.success_url.replaceAll('{CHECKOUT_SESSION_ID}', session.id)
  }

  async function submitPayment(sessionId: string, method: 'card' | 'delayed', email: string) {
    const session = openSession(sessionId)
    if (session.status !== 'open') return { session, event: null }
    complete(session, method, email)
    return { session, event: makeEvent('checkout.session.completed', session) }
  }

  // ---- events -------------------------------------------------------------------------------------

  function makeEvent(type: string, object: Record<string, unknown>, previous?: Record<string, unknown>): StripeEvent {
    return {
      id: `evt_${randomId(24)}`,
      object: 'event',
      api_version: STRIPE_FAKE_API_VERSION,
      created: unixNow(),
      data: { object: structuredClone(object), ...(previous ? { previous_attributes: previous } : {}) },
      livemode: false,
      pending_webhooks: webhookUrl ? 1 : 0,
      // Events caused by the customer or the card network carry no API request.
      request: { id: null, idempotency_key: null },
      type,
    }
  }

  async function send(event: StripeEvent): Promise<WebhookDelivery> {
    // Stripe sends the event pretty-printed; a receiver must verify these exact bytes.
    const body = JSON.stringify(event, null, 2)
    const signature = stripeSignatureHeader(body, webhookSecret)
    const delivery: WebhookDelivery = { event, body, signature, status: 0, responseBody: '' }
    deliveries.push(delivery)
    if (!webhookUrl) {
      delivery.error = 'no webhook endpoint configured'
      return delivery
    }
    try {
      const answer = await fetch(webhookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'stripe-signature': signature,
          'cache-control': 'no-cache',
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(20_000),
      })
      delivery.status = answer.status
      delivery.responseBody = await answer.text()
    } catch (error) {
      delivery.error = String(error)
    }
    return delivery
  }

  function queueOrSend(event: StripeEvent): Promise<WebhookDelivery> | null {
    if (deliveryMode === 'manual') {
      queued.push(event)
      return null
    }
    return send(event)
  }

  // ---- the hosted page ----------------------------------------------------------------------------

  async function hostedPage(request: FakeRequest, response: ServerResponse) {
    const id = decodeURIComponent(request.path.slice('/c/pay/'.length))
    const session = sessions.get(id)
    if (!session) return sendHtml(response, 404, page('Not found', '<p>This Checkout Session does not exist.</p>'))
    if (request.method === 'POST') {
      const form = new URLSearchParams(request.body.toString('utf8'))
      const method = form.get('method') === 'delayed' ? 'delayed' : 'card'
      if (session.status === 'expired') return sendHtml(response, 410, expiredPage())
      if (session.status === 'open') {
        const { event } = await submitPayment(id, method, form.get('email') || 'customer@example.com')
        if (event) {
          if (deliveryMode === 'before_redirect') await send(event)
          else if (deliveryMode === 'manual') queued.push(event)
          else response.once('finish', () => void send(event))
        }
      }
      response.writeHead(303, { location: successUrlOf(session), 'content-length': 0 }).end()
      return
    }
    if (request.method !== 'GET') return sendHtml(response, 405, page('Method not allowed', ''))
    if (session.status === 'expired') return sendHtml(response, 200, expiredPage())
    if (session.status === 'complete') {
      return sendHtml(
        response,
        200,
        page(
          'Paid',
          `<p>This payment is complete.</p><p><a href="${escapeHtml(successUrlOf(session))}">Continue</a></p>`,
        ),
      )
    }
    const items = (lineItems.get(id) ?? [])
      .map(
        (item) =>
          `<li>${escapeHtml(String(item.description))} × ${escapeHtml(String(item.quantity))}: ${escapeHtml(formatMoney(Number(item.amount_total), session.currency))}</li>`,
      )
      .join('')
    const amount = formatMoney(session.amount_total, session.currency)
    const cancel = session.cancel_url ? `<p><a href="${escapeHtml(session.cancel_url)}">Back</a></p>` : ''
    sendHtml(
      response,
      200,
      page(
        'Pay',
        `<p>TEST MODE</p><ul>${items}</ul><p>Total: <strong>${escapeHtml(amount)}</strong></p>
<form method="post" action="/c/pay/${escapeHtml(id)}">
<input type="hidden" name="method" value="card">
<label>Email <input type="email" name="email" value="${escapeHtml(String(session.customer_email ?? 'customer@example.com'))}" autocomplete="email"></label>
<p>Card 4242 4242 4242 4242 (test)</p>
<button type="submit">Pay ${escapeHtml(amount)}</button>
</form>
<form method="post" action="/c/pay/${escapeHtml(id)}">
<input type="hidden" name="method" value="delayed">
<button type="submit">Pay by bank debit (settles later)</button>
</form>${cancel}`,
      ),
    )
  }

  // ---- controls -------------------------------------------------------------------------------------

  const fake: StripeFake = {
    url: server.url,
    get secretKey() {
      return secretKey
    },
    webhookSecret,
    clientOptions: { host: '127.0.0.1', port: Number(new URL(server.url).port), protocol: 'http' },
    get env() {
      return {
        STRIPE_SECRET_KEY: secretKey,
        STRIPE_WEBHOOK_SECRET: webhookSecret,
        STRIPE_API_URL: server.url,
        STRIPE_CURRENCY: 'usd',
      }
    },
    sessions,
    charges,
    requests,
    deliveries,
    setWebhookUrl: (url) => void (webhookUrl = url),
    setDeliveryMode: (mode) => void (deliveryMode = mode),
    setFailure: (mode) => void (failure = mode),
    setSecretKey: (key) => void (secretKey = key),
    async pay(sessionId) {
      const { session, event } = await submitPayment(sessionId, 'card', 'customer@example.com')
      if (event) await queueOrSend(event)
      return successUrlOf(session)
    },
    async flushWebhooks() {
      const events = queued.splice(0)
      const sent: WebhookDelivery[] = []
      for (const event of events) sent.push(await send(event))
      return sent
    },
    deliver: (type, object, previous) => send(makeEvent(type, object, previous)),
    async payAsync(sessionId, succeed) {
      const sent: WebhookDelivery[] = []
      const first = await submitPayment(sessionId, 'delayed', 'customer@example.com')
      if (first.event) sent.push(await send(first.event))
      const session = openSession(sessionId)
      if (session.payment_status !== 'unpaid' || session.status !== 'complete') {
        throw new Error(`Stripe fake: session ${sessionId} has no pending delayed payment`)
      }
      const charge = chargeOf(session)
      const intent = intents.get(String(session.payment_intent))!
      if (succeed) {
        Object.assign(charge, {
          paid: true,
          captured: true,
          amount_captured: charge.amount,
          status: 'succeeded',
          balance_transaction: `txn_${randomId(24)}`,
        })
        Object.assign(intent, { status: 'succeeded', amount_received: intent.amount })
        session.payment_status = 'paid'
      } else {
        Object.assign(charge, {
          status: 'failed',
          failure_code: 'insufficient_funds',
          failure_message: 'Insufficient funds.',
        })
        Object.assign(intent, { status: 'requires_payment_method' })
      }
      const type = succeed ? 'checkout.session.async_payment_succeeded' : 'checkout.session.async_payment_failed'
      sent.push(await send(makeEvent(type, session)))
      return sent
    },
    async refund(sessionId, amount) {
      const session = openSession(sessionId)
      const charge = chargeOf(session)
      if (charge.status !== 'succeeded') throw new Error(`Stripe fake: charge ${String(charge.id)} is not paid`)
      const remaining = Number(charge.amount) - Number(charge.amount_refunded)
      const take = amount ?? remaining
      if (!Number.isInteger(take) || take <= 0 || take > remaining) {
        throw new Error(`Stripe fake: cannot refund ${take} of ${remaining} remaining on ${String(charge.id)}`)
      }
      const previous = { amount_refunded: charge.amount_refunded, refunded: charge.refunded }
      charge.amount_refunded = Number(charge.amount_refunded) + take
      charge.refunded = charge.amount_refunded === charge.amount
      return send(makeEvent('charge.refunded', charge, previous))
    },
    async dispute(sessionId, reason = 'fraudulent') {
      const session = openSession(sessionId)
      const charge = chargeOf(session)
      charge.disputed = true
      const created = unixNow()
      const dispute = {
        id: `dp_${randomId(24)}`,
        object: 'dispute',
        amount: charge.amount,
        balance_transactions: [],
        charge: charge.id,
        created,
        currency: charge.currency,
        enhanced_eligibility_types: [],
        evidence: {},
        evidence_details: { due_by: created + 7 * 86_400, has_evidence: false, past_due: false, submission_count: 0 },
        is_charge_refundable: false,
        livemode: false,
        metadata: {},
        payment_intent: charge.payment_intent,
        reason,
        status: 'needs_response',
      }
      return send(makeEvent('charge.dispute.created', dispute))
    },
    async expire(sessionId) {
      const session = openSession(sessionId)
      if (session.status !== 'open') throw new Error(`Stripe fake: session ${sessionId} is ${session.status}`)
      session.status = 'expired'
      session.url = null
      return send(makeEvent('checkout.session.expired', session))
    },
    close: () => server.close(),
  }
  return fake
}

// ---- helpers ----------------------------------------------------------------------------------------

function header(request: FakeRequest, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** Why Stripe would answer 401, or null: Bearer (what the libraries send) or Basic with the key as user. */
function authProblem(authorization: string | undefined, secretKey: string): string | null {
  let key: string | null = null
  if (authorization?.startsWith('Bearer ')) key = authorization.slice('Bearer '.length).trim()
  else if (authorization?.startsWith('Basic ')) {
    key = Buffer.from(authorization.slice('Basic '.length), 'base64').toString('utf8').split(':')[0]
  }
  if (!key) {
    return "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/."
  }
  if (key === secretKey) return null
  const prefix = /^(sk|rk|pk)_(test|live)_/.exec(key)?.[0] ?? ''
  const masked = `${prefix}${'*'.repeat(Math.max(0, key.length - prefix.length - 4))}${key.slice(-4)}`
  return `Invalid API Key provided: ${masked}`
}

function stringParam(params: Record<string, unknown>, name: string): string | null {
  const value = params[name]
  if (value === undefined || value === '') return null
  if (typeof value !== 'string') refuse(`Invalid string: {${Object.keys(value as object).join(', ')}}`, name)
  return value as string
}

function objectParam(value: unknown, param: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) refuse('Invalid object', param)
  return value as Record<string, unknown>
}

function integerParam(value: unknown, param: string): number {
  if (typeof value !== 'string' || !/^-?\d+$/.test(value)) {
    refuse(`Invalid integer: ${typeof value === 'string' ? value : 'object'}`, param, 'parameter_invalid_integer')
  }
  return Number(value)
}

function metadataParam(value: unknown, param: string): Record<string, string> {
  if (value === undefined || value === '') return {}
  if (!value || typeof value !== 'object' || Array.isArray(value)) refuse('Invalid object', param)
  const entries = Object.entries(value as Record<string, unknown>)
  if (entries.length > 50) refuse('Invalid metadata: metadata can have a maximum of 50 keys.', param)
  for (const [key, item] of entries) {
    if (typeof item !== 'string') refuse('Invalid metadata: values must be strings.', `${param}[${key}]`)
    if (key.length > 40) refuse('Invalid metadata: keys can be a maximum of 40 characters.', `${param}[${key}]`)
    if ((item as string).length > 500) {
      refuse('Invalid metadata: values can be a maximum of 500 characters.', `${param}[${key}]`)
    }
  }
  // An empty value unsets a key.
  return Object.fromEntries(entries.filter(([, item]) => item !== '')) as Record<string, string>
}

function checkUrl(value: string, param: string) {
  let parsed: URL | null = null
  try {
    parsed = new URL(value)
  } catch {
    parsed = null
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol)) refuse('Not a valid URL', param, 'url_invalid')
  if (value.length > 5000) refuse('Invalid URL: URL must be 5000 characters or less.', param, 'url_invalid')
}

function invalidCurrency(currency: string, param: string): never {
  return refuse(
    `Invalid currency: ${currency}. Stripe currently supports these currencies: ${[...SUPPORTED_CURRENCIES].sort().join(', ')}`,
    param,
  )
}

function formatMoney(minor: number, currency: string): string {
  const major = ZERO_DECIMAL.has(currency) ? minor : minor / 100
  return `${currency === 'usd' ? '$' : ''}${major.toFixed(ZERO_DECIMAL.has(currency) ? 0 : 2)} ${currency}`
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, sortKeys(v)]),
    )
  }
  return value
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

function randomId(length: number): string {
  const bytes = randomBytes(length)
  return Array.from(bytes, (byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join('')
}

function unixNow(): number {
  return Math.floor(Date.now() / 1000)
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Stripe Checkout (fake)</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`
}

function expiredPage(): string {
  return page('Expired', '<p>This Checkout Session is no longer available.</p>')
}
