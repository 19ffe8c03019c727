import { z } from 'zod'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { HttpError } from '#domain/http-error.server.ts'

/**
 * The print lab's HTTP API (Prodigi Print API v4; docs/research/prodigi-print-api.md and decision
 * 0042): a plain fetch client with a timeout, used by the web (products, quotes, cancel) and the
 * worker (orders, re-reads). JSON only, `X-API-Key` on every call, outcomes compared without case.
 * A timeout, a network failure, a 429, a 5xx or a refused key is LabUnavailable (try again later);
 * any other answer that is not a 2xx is LabRefusal, with the lab's `failures` by field path. Every
 * answer is remembered for /system-status.
 */

export type LabMode = 'sandbox' | 'live' | 'custom'

export interface PrintLabConfig {
  lab: 'prodigi'
  apiUrl: string
  apiKey: string
  callbackSecret: string | null
  timeoutMs: number
  mode: LabMode
}

function labMode(apiUrl: string): LabMode {
  const host = new URL(apiUrl).host
  if (host === 'api.sandbox.prodigi.com') return 'sandbox'
  return host === 'api.prodigi.com' ? 'live' : 'custom'
}

/** The configured lab, or null: without a key prints are not available. */
export function printLabConfig(): PrintLabConfig | null {
  const env = getEnv()
  if (!env.PRODIGI_API_KEY) return null
  return {
    lab: env.PRINT_LAB,
    apiUrl: env.PRODIGI_API_URL,
    apiKey: env.PRODIGI_API_KEY,
    callbackSecret: env.PRINT_CALLBACK_SECRET ?? null,
    timeoutMs: env.PRINT_LAB_TIMEOUT_MS,
    mode: labMode(env.PRODIGI_API_URL),
  }
}

export const PRINTS_NOT_AVAILABLE = 'Prints are not available on this site yet'

/** The configured lab, or 404 "prints are not available". */
export function requirePrintLab(): PrintLabConfig {
  const config = printLabConfig()
  if (!config) throw new HttpError(404, PRINTS_NOT_AVAILABLE, { code: 'prints_unavailable' })
  return config
}

class LabUnavailable extends Error {
  readonly retryAfterSeconds: number

  constructor(message: string, retryAfterSeconds = 30) {
    super(message)
    this.name = 'LabUnavailable'
    this.retryAfterSeconds = retryAfterSeconds
  }
}

export type LabFailures = Record<string, { code: string; providedValue?: unknown }[]>

export class LabRefusal extends Error {
  readonly status: number
  readonly outcome: string
  readonly failures: LabFailures

  constructor(status: number, outcome: string, failures: LabFailures) {
    super(`the lab answered ${status} ${outcome}${describeFailures(failures)}`)
    this.name = 'LabRefusal'
    this.status = status
    this.outcome = outcome
    this.failures = failures
  }
}

const describeFailures = (failures: LabFailures) => {
  const parts = Object.entries(failures).map(([path, list]) => `${path}: ${list.map((f) => f.code).join(', ')}`)
  return parts.length > 0 ? ` (${parts.join('; ')})` : ''
}

/** Runs lab calls for the web: the lab away is a 503 with Retry-After, never a 500. */
export async function guardLab<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (!(error instanceof LabUnavailable)) throw error
    throw new HttpError(503, 'The print lab cannot be reached just now. Please try again in a minute.', {
      headers: { 'Retry-After': String(error.retryAfterSeconds) },
    })
  }
}

// --- The parts of the lab's answers the app reads -------------------------------------------

const printAreaSize = z.object({ horizontalResolution: z.number(), verticalResolution: z.number() })

const productSchema = z.object({
  sku: z.string(),
  description: z.string().optional(),
  attributes: z.record(z.array(z.string())).default({}),
  variants: z.array(
    z.object({
      attributes: z.record(z.string()).default({}),
      shipsTo: z.array(z.string()).default([]),
      printAreaSizes: z.object({ default: printAreaSize }),
    }),
  ),
})
export type LabProduct = z.infer<typeof productSchema>

const cost = z.object({ amount: z.string(), currency: z.string() })

const quoteSchema = z.object({
  outcome: z.string(),
  quotes: z
    .array(
      z.object({
        shipmentMethod: z.string(),
        costSummary: z.object({ items: cost, shipping: cost }),
      }),
    )
    .min(1),
})

const issueSchema = z.object({
  objectId: z.string().optional(),
  errorCode: z.string(),
  description: z.string().default(''),
})

const orderSchema = z.object({
  id: z.string(),
  status: z.object({
    stage: z.string(),
    issues: z.array(issueSchema).default([]),
    details: z.record(z.string()).default({}),
  }),
  shipments: z
    .array(
      z.object({
        status: z.string(),
        carrier: z.object({ name: z.string().nullable(), service: z.string().nullable().optional() }).nullable(),
        tracking: z.object({ number: z.string().nullable(), url: z.string().nullable() }).nullable(),
        dispatchDate: z.string().nullable().optional(),
      }),
    )
    .default([]),
})
export type LabOrder = z.infer<typeof orderSchema>

const orderAnswer = z.object({ outcome: z.string(), order: orderSchema })
const actionsAnswer = z.object({ cancel: z.object({ isAvailable: z.string() }) })

export interface LabOrderRequest {
  merchantReference: string
  idempotencyKey: string
  callbackUrl?: string
  shippingMethod: string
  recipient: {
    name: string
    email: string
    phoneNumber?: string
    address: {
      line1: string
      line2?: string
      postalOrZipCode: string
      countryCode: string
      townOrCity: string
      stateOrCounty?: string
    }
  }
  items: {
    merchantReference: string
    sku: string
    copies: number
    sizing: 'fillPrintArea'
    attributes: Record<string, string>
    assets: { printArea: 'default'; url: string; md5Hash: string }[]
  }[]
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** The lab's calls, for one configuration; every answer is recorded for /system-status. */
export function printLab(db: DB, config: PrintLabConfig) {
  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>> {
    let response: Response
    let text: string
    try {
      response = await fetch(config.apiUrl + path, {
        method,
        headers: {
          'x-api-key': config.apiKey,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(config.timeoutMs),
      })
      text = await response.text()
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError'
      await remember(null, timedOut ? 'timeout' : 'network')
      throw new LabUnavailable(`${method} ${path}: ${timedOut ? 'timed out' : `unreachable (${String(error)})`}`)
    }
    let parsed: Record<string, unknown> = {}
    try {
      const value = JSON.parse(text) as unknown
      if (value && typeof value === 'object') parsed = value as Record<string, unknown>
    } catch {
      // Not JSON: judged by its status alone.
    }
    const outcome = typeof parsed.outcome === 'string' ? parsed.outcome : (response.statusText ?? '')
    await remember(response.status, outcome)
    if (response.ok) return parsed
    if (response.status === 429 || response.status >= 500 || response.status === 401 || response.status === 403) {
      const retryAfter = Number(response.headers.get('retry-after'))
      if (response.status === 401 || response.status === 403) {
        getLogger().error({ status: response.status, outcome }, 'the print lab refused our API key')
      }
      throw new LabUnavailable(
        `${method} ${path}: HTTP ${response.status} ${outcome}`,
        Number.isFinite(retryAfter) && retryAfter > 0 ? Math.ceil(retryAfter) : 30,
      )
    }
    throw new LabRefusal(response.status, outcome, (parsed.failures as LabFailures | undefined) ?? {})
  }

  async function remember(status: number | null, outcome: string) {
    const ok = status !== null && status < 500 && status !== 429 && status !== 401
    await db
      .insertInto('print_lab_state')
      .values({
        lab: config.lab,
        last_status: status,
        last_outcome: outcome,
        last_at: new Date(),
        last_ok_at: ok ? new Date() : null,
      })
      .onConflict((oc) =>
        oc.column('lab').doUpdateSet((eb) => ({
          last_status: status,
          last_outcome: outcome,
          last_at: new Date(),
          last_ok_at: ok ? new Date() : eb.ref('print_lab_state.last_ok_at'),
        })),
      )
      .execute()
      .catch((error: unknown) => getLogger().warn({ err: error }, 'could not record the print lab answer'))
  }

  const parse = <T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, value: unknown, what: string): T => {
    const result = schema.safeParse(value)
    if (!result.success)
      throw new LabUnavailable(`the lab's ${what} answer was not understood: ${result.error.message}`)
    return result.data
  }

  return {
    config,
    /** The lab's product, or null when it does not know the SKU. */
    async product(sku: string): Promise<LabProduct | null> {
      try {
        const answer = await call('GET', `/products/${encodeURIComponent(sku)}`)
        return parse(productSchema, answer.product, 'product')
      } catch (error) {
        if (error instanceof LabRefusal && error.status === 404) return null
        throw error
      }
    },
    async quote(request: {
      sku: string
      copies: number
      attributes: Record<string, string>
      countryCode: string
      shippingMethod: string
    }) {
      const answer = await call('POST', '/quotes', {
        shippingMethod: request.shippingMethod,
        destinationCountryCode: request.countryCode,
        items: [
          {
            sku: request.sku,
            copies: request.copies,
            attributes: request.attributes,
            assets: [{ printArea: 'default' }],
          },
        ],
      })
      const quotes = parse(quoteSchema, answer, 'quote').quotes
      const quote = quotes.find((q) => same(q.shipmentMethod, request.shippingMethod)) ?? quotes[0]!
      return quote.costSummary
    },
    /** Creates the order, or answers the one the idempotency key already made (`AlreadyExists`). */
    async createOrder(request: LabOrderRequest) {
      const answer = parse(orderAnswer, await call('POST', '/orders', request), 'order')
      return { outcome: answer.outcome, order: answer.order }
    },
    async order(labOrderId: string) {
      return parse(orderAnswer, await call('GET', `/orders/${encodeURIComponent(labOrderId)}`), 'order').order
    },
    async canCancel(labOrderId: string) {
      const answer = await call('GET', `/orders/${encodeURIComponent(labOrderId)}/actions`)
      return same(parse(actionsAnswer, answer, 'actions').cancel.isAvailable, 'yes')
    },
    /** True when the lab cancelled it (`Cancelled`); false when it could not (`FailedToCancel`, `ActionNotAvailable`). */
    async cancel(labOrderId: string) {
      const answer = await call('POST', `/orders/${encodeURIComponent(labOrderId)}/actions/cancel`)
      return typeof answer.outcome === 'string' && same(answer.outcome, 'cancelled')
    },
  }
}

export type PrintLab = ReturnType<typeof printLab>

/** The /system-status line: which lab, sandbox or live, and its last answer. */
export async function printLabStatus(db: DB) {
  const config = printLabConfig()
  if (!config) return { summary: 'not configured (no PRODIGI_API_KEY): prints are not available', mode: null }
  const last = await db.selectFrom('print_lab_state').selectAll().where('lab', '=', config.lab).executeTakeFirst()
  const answer = last
    ? `last answer ${last.last_status ?? 'none'} ${last.last_outcome ?? ''} at ${last.last_at.toISOString()}`.replace(
        /\s+/g,
        ' ',
      )
    : 'no call yet'
  return { summary: `${config.lab} · ${config.mode} (${config.apiUrl}) · ${answer}`, mode: config.mode }
}
