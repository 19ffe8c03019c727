/**
 * A local stand-in for Prodigi's Print API v4 (https://www.prodigi.com/print-api/docs/reference/),
 * written from that reference and from recorded sandbox answers (docs/research/prodigi-print-api.md):
 *
 * - every request needs the `X-API-Key` header with the configured key, or it is answered
 *   401 `{ outcome: "NotAuthenticated", traceParent }` (the sandbox's recorded answer);
 * - a body must be `application/json` (415 `InvalidContentType` otherwise; a bodiless POST such as
 *   a cancel needs no content type, as in the recording); malformed JSON is 400 `ValidationFailed`;
 * - GET /v4.0/products/{sku}: a small catalogue (canvases, framed prints, fine-art prints) whose
 *   variants carry `shipsTo` and `printAreaSizes.default`; an unknown SKU is 404 `EntityNotFound`;
 * - POST /v4.0/quotes: one quote per shipping method (or the one asked for), costs in the currency
 *   asked for; an unknown SKU, a missing/invalid/unknown attribute or a country the variant does not
 *   ship to is 400 `ValidationFailed` with `failures` keyed by field path; a US destination is
 *   `CreatedWithIssues` with the documented `destinationCountryCode.UsSalesTaxWarning`;
 * - POST /v4.0/orders: validated like a quote plus recipient/items/sizing/assets; `Created`, or
 *   `AlreadyExists` with the existing order when the idempotencyKey was seen before. The fake then
 *   DOWNLOADS every asset URL in the background and checks it is a JPEG or PNG, that its pixels are
 *   the variant's print area (either orientation: the docs say images are rotated to fit) and that
 *   its MD5 matches `md5Hash` when given; a failure marks the asset `Error`, the item `Invalid`,
 *   `status.details.downloadAssets` `Error` and adds the documented issue
 *   `order.items.assets.FailedToDownloaded` (the stage stays InProgress, as recorded);
 * - GET /v4.0/orders/{id}, GET /v4.0/orders (top, skip, orderIds, merchantReferences, status),
 *   GET /v4.0/orders/{id}/actions, POST /v4.0/orders/{id}/actions/cancel (`Cancelled`,
 *   `FailedToCancel`, `ActionNotAvailable`);
 * - callbacks: each stage change is POSTed to the order's `callbackUrl` as a CloudEvent
 *   (`specversion` 1.0, `type` `com.prodigi.order.status.stage.changed#<Stage>`, `source`, `id`
 *   `evt_…`, `time`, `datacontenttype`, `subject` = order id, `data: { order }`); a shipment is
 *   announced as `com.prodigi.order.shipments.shipment#Complete` (not in the reference: seen in the
 *   wild, see docs/research/prodigi-print-api.md).
 *
 * The test drives the lab: `advance(orderId)` moves an order to production, then shipped (carrier,
 * tracking), then Complete; `cancel(orderId)` cancels it on the lab's side; `setFailure` makes the
 * API time out, answer 500, answer 429, or lose the answer of a request it carried out.
 * Point PRODIGI_API_URL at `fake.baseUrl` (it ends in /v4.0). docs/decisions/0042 lists its sources.
 */
import { createHash, randomBytes } from 'node:crypto'
import sharp from 'sharp'
import { sendJson, startHttpFake, waitUnlessClosed } from './http-fake.ts'
import type { FakeRequest } from './http-fake.ts'

// ---------------------------------------------------------------------------------------------
// Wire types (as the API answers them)
// ---------------------------------------------------------------------------------------------

export type ProdigiShippingMethod = 'Budget' | 'Standard' | 'Express' | 'Overnight'
export type ProdigiSizing = 'fillPrintArea' | 'fitPrintArea' | 'stretchToPrintArea'
export type ProdigiStage = 'InProgress' | 'Complete' | 'Cancelled'
export type ProdigiDetailState = 'NotStarted' | 'InProgress' | 'Complete' | 'Error'

export interface ProdigiCost {
  amount: string
  currency: string
}

export interface ProdigiPrintAreaSize {
  horizontalResolution: number
  verticalResolution: number
}

export interface ProdigiVariant {
  attributes: Record<string, string>
  shipsTo: string[]
  printAreaSizes: Record<string, ProdigiPrintAreaSize>
}

export interface ProdigiProduct {
  sku: string
  description: string
  productDimensions: { width: number; height: number; units: string }
  attributes: Record<string, string[]>
  printAreas: Record<string, { required: boolean }>
  variants: ProdigiVariant[]
}

export interface ProdigiAsset {
  id: string
  printArea: string
  md5Hash: string | null
  url: string
  thumbnailUrl: string | null
  status: 'InProgress' | 'Complete' | 'Error'
}

export interface ProdigiItem {
  id: string
  status: 'Ok' | 'Invalid' | 'NotYetDownloaded'
  merchantReference: string | null
  sku: string
  copies: number
  sizing: ProdigiSizing
  thumbnailUrl: string | null
  attributes: Record<string, string>
  assets: ProdigiAsset[]
  recipientCost: ProdigiCost | null
}

export interface ProdigiIssue {
  objectId: string
  errorCode: string
  description: string
  authorisationDetails: { authorisationUrl: string; paymentDetails: ProdigiCost } | null
}

export interface ProdigiShipment {
  id: string
  status: 'Processing' | 'Cancelled' | 'Shipped'
  carrier: { name: string; service: string }
  tracking: { number: string; url: string } | null
  dispatchDate: string | null
  items: { itemId: string }[]
  fulfillmentLocation: { countryCode: string; labCode: string }
}

export interface ProdigiCharge {
  id: string
  chargeType: 'Item' | 'Shipping' | 'Refund' | 'Other'
  prodigiInvoiceNumber: string | null
  totalCost: ProdigiCost
  items: { id: string; shipmentId: string | null; itemId: string | null; cost: ProdigiCost }[]
}

export interface ProdigiAddress {
  line1: string
  line2: string | null
  postalOrZipCode: string
  countryCode: string
  townOrCity: string
  stateOrCounty: string | null
}

export interface ProdigiOrder {
  id: string
  created: string
  lastUpdated: string
  callbackUrl: string | null
  merchantReference: string | null
  shippingMethod: ProdigiShippingMethod
  idempotencyKey: string | null
  status: {
    stage: ProdigiStage
    issues: ProdigiIssue[]
    details: {
      downloadAssets: ProdigiDetailState
      printReadyAssetsPrepared: ProdigiDetailState
      allocateProductionLocation: ProdigiDetailState
      inProduction: ProdigiDetailState
      shipping: ProdigiDetailState
    }
  }
  charges: ProdigiCharge[]
  shipments: ProdigiShipment[]
  recipient: { name: string; email: string | null; phoneNumber: string | null; address: ProdigiAddress }
  items: ProdigiItem[]
  packingSlip: null
  metadata: Record<string, unknown> | null
}

export interface ProdigiCallbackEvent {
  specversion: '1.0'
  type: string
  source: string
  id: string
  time: string
  datacontenttype: 'application/json'
  subject: string
  data: { order: ProdigiOrder }
}

/** A `failures` entry of a 400 ValidationFailed answer. */
export interface ProdigiFailure {
  code: string
  providedValue: unknown
  missingItems?: { attributes: { name: string; validValues: string[] }[] }
}

// ---------------------------------------------------------------------------------------------
// Catalogue
// ---------------------------------------------------------------------------------------------

export interface FakeCatalogueEntry {
  product: ProdigiProduct
  /** The lab's price of one copy, in GBP (the fake account's currency). */
  unitCostGbp: number
  lab: { countryCode: string; labCode: string }
}

/** Where the fake's products ship unless an entry says otherwise (ISO 3166-1 alpha-2). */
const FAKE_SHIPS_TO = [
  'AT',
  'AU',
  'BE',
  'CA',
  'CH',
  'DE',
  'DK',
  'ES',
  'FI',
  'FR',
  'GB',
  'IE',
  'IT',
  'NL',
  'NO',
  'NZ',
  'PL',
  'PT',
  'SE',
  'US',
]
/** Framed products in the fake do not ship to AU or NZ, so a test can hit a refused country. */
const FRAMED_SHIPS_TO = FAKE_SHIPS_TO.filter((c) => c !== 'AU' && c !== 'NZ')

const area = (w: number, h: number) => ({ default: { horizontalResolution: w, verticalResolution: h } })

/**
 * A stretched canvas: the ImageWrap variant's print area includes the 38 mm edges (about 1.575 in
 * each side at 300 DPI); the other wraps print the face only (plus a small bleed) and the lab
 * paints or mirrors the edges. The pixel sizes are the fake's, in the pattern of recorded answers
 * (docs/research/prodigi-print-api.md): the app must read the real ones from GET /products/{sku}.
 */
function canvas(widthIn: number, heightIn: number, unitCostGbp: number): FakeCatalogueEntry {
  const face = area(Math.round((widthIn + 0.15) * 300), Math.round((heightIn + 0.15) * 300))
  const wrapped = area(Math.round((widthIn + 3.15) * 300), Math.round((heightIn + 3.15) * 300))
  const fixed = { edge: '38mm', frame: '38mm standard stretcher bar' }
  return {
    product: {
      sku: `GLOBAL-CAN-${widthIn}X${heightIn}`,
      description: `Stretched canvas on a 38mm standard stretcher bar, ${widthIn}x${heightIn}"`,
      productDimensions: { width: widthIn, height: heightIn, units: 'in' },
      attributes: { wrap: ['Black', 'ImageWrap', 'MirrorWrap', 'White'], edge: ['38mm'], frame: [fixed.frame] },
      printAreas: { default: { required: true } },
      variants: ['Black', 'ImageWrap', 'MirrorWrap', 'White'].map((wrap) => ({
        attributes: { wrap, ...fixed },
        shipsTo: FAKE_SHIPS_TO,
        printAreaSizes: wrap === 'ImageWrap' ? wrapped : face,
      })),
    },
    unitCostGbp,
    lab: { countryCode: 'GB', labCode: 'uk6' },
  }
}

const FRAME_COLOURS = ['black', 'brown', 'gold', 'natural', 'silver', 'white']

/** A classic framed print without a mount; `sizes` gives a colour its own print area (recorded quirk). */
function framedPrint(
  widthIn: number,
  heightIn: number,
  unitCostGbp: number,
  printArea: [number, number],
  sizes: Record<string, [number, number]> = {},
): FakeCatalogueEntry {
  const fixed = { glaze: 'Acrylic / Perspex', mount: 'No mount / Mat', paperType: 'EMA' }
  return {
    product: {
      sku: `GLOBAL-CFP-${widthIn}X${heightIn}`,
      description: `Classic frame, fine art print, ${widthIn}x${heightIn}"`,
      productDimensions: { width: widthIn, height: heightIn, units: 'in' },
      attributes: {
        color: FRAME_COLOURS,
        glaze: [fixed.glaze],
        mount: [fixed.mount],
        paperType: [fixed.paperType],
      },
      printAreas: { default: { required: true } },
      variants: FRAME_COLOURS.map((color) => ({
        attributes: { color, ...fixed },
        shipsTo: FRAMED_SHIPS_TO,
        printAreaSizes: area(...(sizes[color] ?? printArea)),
      })),
    },
    unitCostGbp,
    lab: { countryCode: 'GB', labCode: 'uk3' },
  }
}

/** A classic framed print with a 2.4 mm snow-white mount: the print area is the mount's window. */
function mountedPrint(widthIn: number, heightIn: number, unitCostGbp: number, printArea: [number, number]) {
  const fixed = { glaze: 'Acrylic / Perspex', mount: '2.4mm', mountColor: 'Snow white', paperType: 'EMA' }
  const entry = framedPrint(widthIn, heightIn, unitCostGbp, printArea)
  entry.product.sku = `GLOBAL-CFPM-${widthIn}X${heightIn}`
  entry.product.description = `Classic frame with mount, fine art print, ${widthIn}x${heightIn}"`
  entry.product.attributes = {
    color: FRAME_COLOURS,
    glaze: [fixed.glaze],
    mount: [fixed.mount],
    mountColor: [fixed.mountColor],
    paperType: [fixed.paperType],
  }
  entry.product.variants = FRAME_COLOURS.map((color) => ({
    attributes: { color, ...fixed },
    shipsTo: FRAMED_SHIPS_TO,
    printAreaSizes: area(...printArea),
  }))
  return entry
}

/** A fine-art (giclée) print on EMA paper at 300 DPI: no attribute to choose. */
function fineArt(widthIn: number, heightIn: number, unitCostGbp: number): FakeCatalogueEntry {
  return {
    product: {
      sku: `GLOBAL-FAP-${widthIn}X${heightIn}`,
      description: `Fine art print on enhanced matte art paper, ${widthIn}x${heightIn}"`,
      productDimensions: { width: widthIn, height: heightIn, units: 'in' },
      attributes: { paperType: ['EMA'], substrateWeight: ['200gsm'] },
      printAreas: { default: { required: true } },
      variants: [
        {
          attributes: { paperType: 'EMA', substrateWeight: '200gsm' },
          shipsTo: FAKE_SHIPS_TO,
          printAreaSizes: area(widthIn * 300, heightIn * 300),
        },
      ],
    },
    unitCostGbp,
    lab: { countryCode: 'GB', labCode: 'uk1' },
  }
}

/** The fake's default catalogue (sizes from recorded answers where there are any; see docs/research/prodigi-print-api.md). */
export function defaultProdigiCatalogue(): FakeCatalogueEntry[] {
  return [
    canvas(8, 10, 12.5),
    canvas(10, 10, 14.37),
    canvas(12, 16, 24),
    canvas(16, 24, 34),
    canvas(24, 36, 58),
    framedPrint(12, 16, 28, [3600, 4800], { black: [3614, 4795], white: [3614, 4795] }),
    framedPrint(16, 24, 42, [4800, 7200]),
    framedPrint(20, 28, 55, [6000, 8400]),
    mountedPrint(12, 16, 32, [2400, 3600]),
    fineArt(12, 16, 9.5),
    fineArt(16, 24, 13),
    fineArt(24, 36, 21),
  ]
}

// ---------------------------------------------------------------------------------------------
// Handle
// ---------------------------------------------------------------------------------------------

export type ProdigiFakeFailure =
  /** Accepts the request and never answers, until the client gives up. Nothing is carried out. */
  | 'timeout'
  /** 500 `{ outcome: "InternalServerError" }`. Nothing is carried out. */
  | '5xx'
  /** 429 with `Retry-After: 1` and the documented base error object. Nothing is carried out. */
  | 'rateLimit'
  /** Carries the request out (an order is created) and then never answers: a lost answer. */
  | 'lostAnswer'

export interface RecordedProdigiRequest {
  method: string
  path: string
  apiKey: string | undefined
  contentType: string | undefined
  /** Parsed JSON when it parsed, else the raw text (undefined without a body). */
  body: unknown
  /** The HTTP status answered (undefined while in progress or when never answered). */
  status?: number
  outcome?: string
}

export interface DeliveredCallback {
  orderId: string
  url: string
  event: ProdigiCallbackEvent
  /** The receiver's HTTP status, or the delivery error. */
  status?: number
  error?: string
}

export interface AssetCheck {
  orderId: string
  itemId: string
  assetId: string
  url: string
  /** The HTTP status of the download, when there was an answer. */
  httpStatus?: number
  format?: string
  width?: number
  height?: number
  md5?: string
  expected: { width: number; height: number }
  /** Why the lab refused it, or null when it was accepted. */
  problem: string | null
}

export interface ProdigiFakeOptions {
  port?: number
  apiKey?: string
  catalogue?: FakeCatalogueEntry[]
  /** 'exact' (default): the print area in either orientation; 'atLeast': no smaller; 'off'. */
  pixelCheck?: 'exact' | 'atLeast' | 'off'
  /** Milliseconds a single asset download may take (default 10 000). */
  downloadTimeoutMs?: number
}

export interface ProdigiFake {
  /** http://127.0.0.1:PORT */
  url: string
  /** The value for PRODIGI_API_URL: `${url}/v4.0`. */
  baseUrl: string
  apiKey: string
  catalogue: Map<string, FakeCatalogueEntry>
  /** The lab's orders by id, as GET /orders/{id} answers them (live objects). */
  orders: Map<string, ProdigiOrder>
  requests: RecordedProdigiRequest[]
  callbacks: DeliveredCallback[]
  assetChecks: AssetCheck[]
  /**
   * Makes the coming API requests fail as `mode` says (null: back to normal): all of them, or
   * `times` of them, or only those `match` selects (e.g. `(r) => r.method === 'POST'`).
   */
  setFailure(
    mode: ProdigiFakeFailure | null,
    options?: { times?: number; match?: (request: { method: string; path: string }) => boolean },
  ): void
  /** The next API cancel answers `FailedToCancel` (the lab could not stop it) and changes nothing. */
  refuseNextCancel(): void
  /**
   * The next create answer, made as usual, reaches the client only once the lab has fetched the
   * order's assets and delivered its callbacks: an answer slow on its way back, overtaken by them.
   */
  holdNextCreateAnswer(): void
  /**
   * Moves an order one step on (or straight `to` a step): production (shipment allocated, cancel
   * no longer available) → shipped (carrier, tracking, dispatch date; shipment callback) → Complete
   * (stage callback). Waits for its asset downloads first; refuses an order whose assets failed.
   */
  advance(orderId: string, to?: 'inProduction' | 'shipped' | 'complete'): Promise<ProdigiOrder>
  /** Cancels an order on the lab's side (stage Cancelled, shipments cancelled, stage callback). */
  cancel(orderId: string): Promise<ProdigiOrder>
  /** Resolves when every asset download and callback delivery started so far has finished. */
  idle(): Promise<void>
  close(): Promise<void>
}

type Phase = 'received' | 'inProduction' | 'shipped' | 'complete' | 'cancelled'

const SHIPPING: Record<ProdigiShippingMethod, { gbp: number; carrier: string; service: string }> = {
  Budget: { gbp: 4.5, carrier: 'Royal Mail', service: 'Tracked 48' },
  Standard: { gbp: 7.95, carrier: 'DPD', service: 'DPD Classic' },
  Express: { gbp: 14.95, carrier: 'FedEx', service: 'FedEx International Priority' },
  Overnight: { gbp: 24.95, carrier: 'FedEx', service: 'FedEx Priority Overnight' },
}
const METHODS = Object.keys(SHIPPING) as ProdigiShippingMethod[]
/** GBP → currency. */
const RATES: Record<string, number> = { GBP: 1, USD: 1.27, EUR: 1.17 }
const ACCOUNT_CURRENCY = 'GBP'
const SIZINGS: ProdigiSizing[] = ['fillPrintArea', 'fitPrintArea', 'stretchToPrintArea']

export async function startProdigiFake(options: ProdigiFakeOptions = {}): Promise<ProdigiFake> {
  const apiKey = options.apiKey ?? 'test-prodigi-sandbox-key'
  const catalogue = new Map(
    (options.catalogue ?? defaultProdigiCatalogue()).map((entry) => [entry.product.sku.toUpperCase(), entry]),
  )
  const orders = new Map<string, ProdigiOrder>()
  const phases = new Map<string, Phase>()
  const downloads = new Map<string, Promise<void>>()
  const byIdempotencyKey = new Map<string, string>()
  const requests: RecordedProdigiRequest[] = []
  const callbacks: DeliveredCallback[] = []
  const assetChecks: AssetCheck[] = []
  const pending = new Set<Promise<unknown>>()
  let failure: {
    mode: ProdigiFakeFailure
    left: number
    match?: (r: { method: string; path: string }) => boolean
  } | null = null
  let refuseCancel = false
  let holdCreateAnswer = false
  // A real lab never gives two orders one id: each fake starts its ids where no earlier one did.
  let sequence = 100_000 * (1 + Math.floor(Math.random() * 9_000))
  const nextId = (prefix: string) => `${prefix}_${++sequence}`
  let baseUrl = ''

  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise)
    void promise.finally(() => pending.delete(promise)).catch(() => {})
    return promise
  }
  /** Resolves when every asset download and callback delivery started so far has finished. */
  const idle = async () => {
    while (pending.size > 0) await Promise.allSettled([...pending])
  }

  const server = await startHttpFake(
    async (request, response) => {
      const record: RecordedProdigiRequest = {
        method: request.method,
        path: request.path,
        apiKey: header(request, 'x-api-key'),
        contentType: header(request, 'content-type'),
        body: parseBody(request.body),
      }
      requests.push(record)
      const trace = traceParent()
      let lose = false
      const reply = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
        record.status = status
        record.outcome = typeof body.outcome === 'string' ? body.outcome : undefined
        if (lose) return waitUnlessClosed(response, 10 * 60_000)
        response.setHeader('traceParent', trace)
        for (const [name, value] of Object.entries(headers)) response.setHeader(name, value)
        sendJson(response, status, { ...body, traceParent: trace })
      }

      if (failure && (!failure.match || failure.match(request)) && failure.left > 0) {
        const mode = failure.mode
        failure.left -= 1
        if (failure.left <= 0) failure = null
        if (mode === 'timeout') return waitUnlessClosed(response, 10 * 60_000)
        if (mode === '5xx') return reply(500, { outcome: 'InternalServerError' })
        if (mode === 'rateLimit') {
          return reply(429, { statusText: 'Too Many Requests', statusCode: 429, data: {} }, { 'Retry-After': '1' })
        }
        lose = true
      }

      if (record.apiKey !== apiKey) return reply(401, { outcome: 'NotAuthenticated' }, { 'WWW-Authenticate': 'Bearer' })

      const hasBody = request.body.length > 0
      const route = routeOf(request.method, request.path)
      const wantsJson = hasBody || route.takesBody
      if (wantsJson && !/^application\/json\s*(;|$)/i.test(record.contentType ?? '')) {
        return reply(415, { outcome: 'InvalidContentType' })
      }
      if (hasBody && typeof record.body === 'string') {
        return reply(400, {
          outcome: 'ValidationFailed',
          failures: { body: [{ code: 'InvalidJson', providedValue: null }] },
        })
      }
      const body = (record.body ?? {}) as Record<string, unknown>

      switch (route.name) {
        case 'notFound':
          return reply(404, { outcome: 'EndpointDoesNotExist' })
        case 'methodNotAllowed':
          return reply(405, { outcome: 'MethodNotAllowed' })
        case 'notImplemented':
          // The update actions exist on the real API; this fake does not do them, loudly.
          return reply(501, { outcome: 'InternalServerError', statusText: 'not implemented by the Prodigi fake' })
        case 'product': {
          const entry = catalogue.get(route.id.toUpperCase())
          if (!entry) return reply(404, { outcome: 'EntityNotFound' })
          return reply(200, { outcome: 'Ok', product: entry.product })
        }
        case 'quote':
          return answerQuote(body, reply)
        case 'createOrder':
          return createOrder(body, reply)
        case 'listOrders':
          return listOrders(request.query, reply)
        case 'getOrder': {
          const order = orders.get(route.id)
          if (!order) return reply(404, { outcome: 'EntityNotFound' })
          return reply(200, { outcome: 'Ok', order })
        }
        case 'actions': {
          const order = orders.get(route.id)
          if (!order) return reply(404, { outcome: 'EntityNotFound' })
          return reply(200, { outcome: 'Ok', ...actionsOf(order) })
        }
        case 'cancel': {
          const order = orders.get(route.id)
          if (!order) return reply(404, { outcome: 'EntityNotFound' })
          if (actionsOf(order).cancel.isAvailable === 'No') return reply(200, { outcome: 'ActionNotAvailable', order })
          if (refuseCancel) {
            refuseCancel = false
            return reply(200, { outcome: 'FailedToCancel', order })
          }
          cancelOrder(order)
          return reply(200, { outcome: 'Cancelled', order })
        }
      }
    },
    { port: options.port },
  )
  baseUrl = `${server.url}/v4.0`

  // -------------------------------------------------------------------------------------------
  // Validation shared by quotes and orders
  // -------------------------------------------------------------------------------------------

  type Failures = Record<string, ProdigiFailure[]>
  const fail = (
    failures: Failures,
    path: string,
    code: string,
    providedValue: unknown,
    extra: Partial<ProdigiFailure> = {},
  ) => {
    ;(failures[path] ??= []).push({ code, providedValue: providedValue ?? null, ...extra })
  }

  /** Checks one item's sku, attributes, assets and destination; answers its entry and variant. */
  function checkItem(
    item: Record<string, unknown>,
    path: string,
    countryCode: unknown,
    countryPath: string,
    failures: Failures,
    forOrder: boolean,
  ): { entry: FakeCatalogueEntry; variant: ProdigiVariant; attributes: Record<string, string> } | null {
    const sku = item.sku
    if (typeof sku !== 'string' || !sku) {
      fail(failures, `${path}.sku`, 'Required', sku)
      return null
    }
    const entry = catalogue.get(sku.toUpperCase())
    if (!entry) {
      fail(failures, `${path}.sku`, 'SkuNotFound', sku)
      return null
    }
    const copies = item.copies
    if (!Number.isInteger(copies) || (copies as number) < 1)
      fail(failures, `${path}.copies`, 'MustBeGreaterThanZero', copies)
    if (forOrder && !SIZINGS.includes(item.sizing as ProdigiSizing)) {
      fail(failures, `${path}.sizing`, item.sizing === undefined ? 'Required' : 'InvalidValue', item.sizing)
    }

    const product = entry.product
    const given = item.attributes ?? {}
    if (typeof given !== 'object' || Array.isArray(given)) {
      fail(failures, `${path}.attributes`, 'InvalidValue', given)
      return null
    }
    const attributes: Record<string, string> = {}
    const missing: { name: string; validValues: string[] }[] = []
    for (const [name, value] of Object.entries(given as Record<string, unknown>)) {
      const valid = product.attributes[name]
      if (!valid) fail(failures, `${path}.attributes.${name}`, 'AttributeNotValidForProduct', value)
      else if (typeof value !== 'string' || !valid.includes(value)) {
        fail(failures, `${path}.attributes.${name}`, 'InvalidAttributeValue', value, {
          missingItems: { attributes: [{ name, validValues: valid }] },
        })
      } else attributes[name] = value
    }
    for (const [name, valid] of Object.entries(product.attributes)) {
      if (attributes[name] !== undefined || name in (given as object)) continue
      if (valid.length === 1) attributes[name] = valid[0]
      else missing.push({ name, validValues: valid })
    }
    if (missing.length > 0) {
      fail(failures, `${path}.attributes`, 'MissingRequiredAttributes', null, { missingItems: { attributes: missing } })
    }

    const assets = item.assets
    if (!Array.isArray(assets)) fail(failures, `${path}.assets`, 'Required', assets)
    else {
      const areas = assets.map((a) =>
        a && typeof a === 'object' ? (a as Record<string, unknown>).printArea : undefined,
      )
      assets.forEach((asset, index) => {
        const printArea = areas[index] ?? 'default'
        if (typeof printArea !== 'string' || !product.printAreas[printArea]) {
          fail(failures, `${path}.assets[${index}].printArea`, 'InvalidValue', printArea)
        }
        if (forOrder) {
          const url = (asset as Record<string, unknown> | null)?.url
          if (typeof url !== 'string' || !url) fail(failures, `${path}.assets[${index}].url`, 'Required', url)
          else if (!/^https?:\/\//i.test(url)) fail(failures, `${path}.assets[${index}].url`, 'MustBeAValidUrl', url)
          const md5 = (asset as Record<string, unknown> | null)?.md5Hash
          if (md5 != null && (typeof md5 !== 'string' || !/^[0-9a-f]{32}$/i.test(md5))) {
            fail(failures, `${path}.assets[${index}].md5Hash`, 'InvalidValue', md5)
          }
        }
      })
      for (const [name, { required }] of Object.entries(product.printAreas)) {
        const present = areas.some((a) => (a ?? 'default') === name)
        if (required && !present) fail(failures, `${path}.assets`, 'MissingRequiredPrintArea', name)
      }
    }
    if (missing.length > 0 || Object.keys(failures).some((key) => key.startsWith(`${path}.attributes`))) return null

    const variant = product.variants.find((v) =>
      Object.entries(attributes).every(([k, value]) => v.attributes[k] === value),
    )
    if (!variant) {
      fail(failures, `${path}.attributes`, 'NoMatchingVariant', given)
      return null
    }
    if (typeof countryCode === 'string' && countryCode && !variant.shipsTo.includes(countryCode.toUpperCase())) {
      fail(failures, countryPath, 'NotAvailableInDestinationCountry', countryCode, {})
    }
    return { entry, variant, attributes }
  }

  // -------------------------------------------------------------------------------------------
  // Quotes
  // -------------------------------------------------------------------------------------------

  function answerQuote(body: Record<string, unknown>, reply: Reply) {
    const failures: Failures = {}
    const country = body.destinationCountryCode
    if (typeof country !== 'string' || !/^[A-Za-z]{2}$/.test(country)) {
      fail(failures, 'destinationCountryCode', country === undefined ? 'Required' : 'InvalidValue', country)
    }
    const method = body.shippingMethod === undefined ? undefined : canonicalMethod(body.shippingMethod)
    if (method === null) fail(failures, 'shippingMethod', 'InvalidValue', body.shippingMethod)
    const currency = typeof body.currencyCode === 'string' ? body.currencyCode.toUpperCase() : ACCOUNT_CURRENCY
    if (!RATES[currency]) fail(failures, 'currencyCode', 'InvalidValue', body.currencyCode)
    const items = Array.isArray(body.items) ? (body.items as Record<string, unknown>[]) : null
    if (!items || items.length === 0)
      fail(failures, 'items', items ? 'MustNotBeEmptyArray' : 'Required', body.items ?? null)
    const checked = (items ?? []).map((item, i) =>
      checkItem(item ?? {}, `items[${i}]`, country, 'destinationCountryCode', failures, false),
    )
    if (Object.keys(failures).length > 0) return reply(400, { outcome: 'ValidationFailed', failures })

    const rate = RATES[currency]
    const money = (gbp: number): ProdigiCost => ({ amount: (gbp * rate).toFixed(2), currency })
    const quoteItems = checked.map((c, i) => ({
      id: `qit_${randomBytes(16).toString('hex')}`,
      sku: c!.entry.product.sku,
      copies: items![i].copies as number,
      unitCost: money(c!.entry.unitCostGbp),
      attributes: c!.attributes,
      assets: Object.keys(c!.entry.product.printAreas).map((printArea) => ({ printArea })),
    }))
    const itemsGbp = checked.reduce((sum, c, i) => sum + c!.entry.unitCostGbp * (items![i].copies as number), 0)
    const labs = [...new Set(checked.map((c) => c!.entry.lab.labCode))]
    const quotes = (method ? [method] : METHODS).map((shipmentMethod) => {
      const shipments = labs.map((labCode) => {
        const lab = checked.find((c) => c!.entry.lab.labCode === labCode)!.entry.lab
        return {
          carrier: { name: SHIPPING[shipmentMethod].carrier, service: SHIPPING[shipmentMethod].service },
          fulfillmentLocation: { countryCode: lab.countryCode, labCode },
          cost: money(SHIPPING[shipmentMethod].gbp),
          items: quoteItems.filter((_, i) => checked[i]!.entry.lab.labCode === labCode).map((q) => q.id),
        }
      })
      const shippingGbp = SHIPPING[shipmentMethod].gbp * shipments.length
      return {
        shipmentMethod,
        costSummary: {
          items: money(itemsGbp),
          shipping: money(shippingGbp),
          // Not in the reference (which lists items and shipping); newer answers carry it.
          totalCost: money(itemsGbp + shippingGbp),
        },
        shipments,
        items: quoteItems,
      }
    })
    if ((country as string).toUpperCase() === 'US') {
      return reply(200, {
        outcome: 'CreatedWithIssues',
        issues: [
          {
            errorCode: 'destinationCountryCode.UsSalesTaxWarning',
            description: 'Prices may be subject to US sales tax, which this quote does not include.',
          },
        ],
        quotes,
      })
    }
    return reply(200, { outcome: 'Created', quotes })
  }

  // -------------------------------------------------------------------------------------------
  // Orders
  // -------------------------------------------------------------------------------------------

  function createOrder(body: Record<string, unknown>, reply: Reply) {
    const failures: Failures = {}
    const method = canonicalMethod(body.shippingMethod)
    if (!method)
      fail(
        failures,
        'shippingMethod',
        body.shippingMethod === undefined ? 'Required' : 'InvalidValue',
        body.shippingMethod,
      )
    const recipient = (body.recipient ?? {}) as Record<string, unknown>
    const address = (recipient.address ?? {}) as Record<string, unknown>
    const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value : null)
    if (!text(recipient.name)) fail(failures, 'recipient.name', 'Required', recipient.name)
    for (const field of ['line1', 'townOrCity', 'countryCode', 'postalOrZipCode']) {
      if (!text(address[field])) fail(failures, `recipient.address.${field}`, 'Required', address[field])
    }
    const country = text(address.countryCode)
    if (country && !/^[A-Za-z]{2}$/.test(country))
      fail(failures, 'recipient.address.countryCode', 'InvalidValue', country)
    if (recipient.email != null && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(String(recipient.email))) {
      fail(failures, 'recipient.email', 'MustBeAValidEmailAddress', recipient.email)
    }
    const callbackUrl = body.callbackUrl ?? null
    if (callbackUrl !== null && (typeof callbackUrl !== 'string' || !/^https?:\/\//i.test(callbackUrl))) {
      fail(failures, 'callbackUrl', 'MustBeAValidUrl', callbackUrl)
    }
    if (body.metadata != null && JSON.stringify(body.metadata).length > 2000) {
      fail(failures, 'metadata', 'MaximumLengthExceeded', null)
    }
    const items = Array.isArray(body.items) ? (body.items as Record<string, unknown>[]) : null
    if (!items || items.length === 0) fail(failures, 'items', 'MustNotBeEmptyArray', body.items ?? [])
    const checked = (items ?? []).map((item, i) =>
      checkItem(item ?? {}, `items[${i}]`, country, 'recipient.address.countryCode', failures, true),
    )
    if (Object.keys(failures).length > 0) return reply(400, { outcome: 'ValidationFailed', failures })

    const key = typeof body.idempotencyKey === 'string' && body.idempotencyKey ? body.idempotencyKey : null
    const existing = key ? byIdempotencyKey.get(key) : undefined
    if (existing) return reply(200, { outcome: 'AlreadyExists', order: orders.get(existing) })

    const now = new Date().toISOString()
    const order: ProdigiOrder = {
      id: nextId('ord'),
      created: now,
      lastUpdated: now,
      callbackUrl: callbackUrl as string | null,
      merchantReference: text(body.merchantReference),
      shippingMethod: method!,
      idempotencyKey: key,
      status: {
        stage: 'InProgress',
        issues: [],
        details: {
          downloadAssets: 'NotStarted',
          printReadyAssetsPrepared: 'NotStarted',
          allocateProductionLocation: 'NotStarted',
          inProduction: 'NotStarted',
          shipping: 'NotStarted',
        },
      },
      charges: [],
      shipments: [],
      recipient: {
        name: String(recipient.name),
        email: text(recipient.email),
        phoneNumber: text(recipient.phoneNumber),
        address: {
          line1: String(address.line1),
          line2: text(address.line2),
          postalOrZipCode: String(address.postalOrZipCode),
          countryCode: country!.toUpperCase(),
          townOrCity: String(address.townOrCity),
          stateOrCounty: text(address.stateOrCounty),
        },
      },
      items: items!.map((item, i) => ({
        id: nextId('ori'),
        status: 'NotYetDownloaded',
        merchantReference: text(item.merchantReference),
        sku: checked[i]!.entry.product.sku,
        copies: item.copies as number,
        sizing: item.sizing as ProdigiSizing,
        thumbnailUrl: null,
        attributes: checked[i]!.attributes,
        assets: (item.assets as Record<string, unknown>[]).map((asset) => ({
          id: nextId('ast'),
          printArea: typeof asset.printArea === 'string' ? asset.printArea : 'default',
          md5Hash: typeof asset.md5Hash === 'string' ? asset.md5Hash.toLowerCase() : null,
          url: String(asset.url),
          thumbnailUrl: null,
          status: 'InProgress',
        })),
        recipientCost: (item.recipientCost as ProdigiCost | undefined) ?? null,
      })),
      packingSlip: null,
      metadata: (body.metadata as Record<string, unknown> | undefined) ?? null,
    }
    orders.set(order.id, order)
    phases.set(order.id, 'received')
    if (key) byIdempotencyKey.set(key, order.id)
    const variants = checked.map((c) => c!.variant)
    const download = track(downloadAssets(order, variants))
    downloads.set(order.id, download)
    const answer = { outcome: 'Created', order: structuredClone(order) }
    if (!holdCreateAnswer) return reply(200, answer)
    holdCreateAnswer = false
    return download.then(idle).then(() => reply(200, answer))
  }

  /** The lab's asset download: fetch, check the image, then the order enters fulfilment. */
  async function downloadAssets(order: ProdigiOrder, variants: ProdigiVariant[]) {
    // Answer the create request first, as the real API does (assets are fetched afterwards).
    await new Promise((resolve) => setImmediate(resolve))
    order.status.details.downloadAssets = 'InProgress'
    for (const [index, item] of order.items.entries()) {
      for (const asset of item.assets) {
        const size = variants[index].printAreaSizes[asset.printArea]
        const check = await checkAsset(order.id, item.id, asset, size)
        assetChecks.push(check)
        asset.status = check.problem ? 'Error' : 'Complete'
        if (check.problem) {
          order.status.issues.push({
            objectId: item.id,
            errorCode: 'order.items.assets.FailedToDownloaded',
            description: `File not downloaded for item '${item.id}' asset '${asset.printArea}' at location '${asset.url}': ${check.problem}`,
            authorisationDetails: null,
          })
        }
      }
      item.status = item.assets.every((a) => a.status === 'Complete') ? 'Ok' : 'Invalid'
    }
    if (phases.get(order.id) === 'cancelled') return
    order.status.details.downloadAssets = order.items.every((i) => i.status === 'Ok') ? 'Complete' : 'Error'
    touch(order)
    notify(order, 'com.prodigi.order.status.stage.changed#InProgress')
  }

  async function checkAsset(
    orderId: string,
    itemId: string,
    asset: ProdigiAsset,
    size: ProdigiPrintAreaSize,
  ): Promise<AssetCheck> {
    const expected = { width: size.horizontalResolution, height: size.verticalResolution }
    const check: AssetCheck = { orderId, itemId, assetId: asset.id, url: asset.url, expected, problem: null }
    let bytes: Buffer
    try {
      const answer = await fetch(asset.url, { signal: AbortSignal.timeout(options.downloadTimeoutMs ?? 10_000) })
      check.httpStatus = answer.status
      if (!answer.ok) return { ...check, problem: `HTTP ${answer.status}` }
      bytes = Buffer.from(await answer.arrayBuffer())
    } catch (error) {
      return { ...check, problem: `download failed (${error instanceof Error ? error.message : String(error)})` }
    }
    check.md5 = createHash('md5').update(bytes).digest('hex')
    if (asset.md5Hash && asset.md5Hash !== check.md5) {
      return { ...check, problem: `MD5 ${check.md5} does not match md5Hash ${asset.md5Hash}` }
    }
    try {
      const meta = await sharp(bytes).metadata()
      check.format = meta.format
      check.width = meta.width
      check.height = meta.height
    } catch {
      return { ...check, problem: 'not an image' }
    }
    if (check.format !== 'jpeg' && check.format !== 'png') {
      return { ...check, problem: `unsupported format ${check.format} (JPEG or PNG only)` }
    }
    const mode = options.pixelCheck ?? 'exact'
    const w = check.width ?? 0
    const h = check.height ?? 0
    const fits = (a: number, b: number) =>
      mode === 'exact' ? a === expected.width && b === expected.height : a >= expected.width && b >= expected.height
    if (mode !== 'off' && !fits(w, h) && !fits(h, w)) {
      return { ...check, problem: `image is ${w}x${h} px, the print area is ${expected.width}x${expected.height} px` }
    }
    return check
  }

  function listOrders(query: URLSearchParams, reply: Reply) {
    const get = (name: string) =>
      [...query.entries()].filter(([k]) => k.toLowerCase() === name.toLowerCase()).map(([, v]) => v)
    const list = (name: string) =>
      get(name)
        .flatMap((v) => v.split(','))
        .filter(Boolean)
    const top = Number(get('top')[0] ?? 10)
    const skip = Number(get('skip')[0] ?? 0)
    if (!Number.isInteger(top) || top < 1 || top > 100 || !Number.isInteger(skip) || skip < 0) {
      return reply(400, {
        outcome: 'ValidationFailed',
        failures: { top: [{ code: 'InvalidValue', providedValue: top }] },
      })
    }
    const ids = list('orderIds')
    const refs = list('merchantReferences')
    const status = get('status')[0]?.toLowerCase()
    const matching = [...orders.values()]
      .filter((o) => ids.length === 0 || ids.includes(o.id))
      .filter((o) => refs.length === 0 || (o.merchantReference !== null && refs.includes(o.merchantReference)))
      .filter((o) => !status || o.status.stage.toLowerCase() === status)
      .sort((a, b) => Number(b.id.slice(4)) - Number(a.id.slice(4)))
    const page = matching.slice(skip, skip + top)
    const hasMore = skip + top < matching.length
    return reply(200, {
      outcome: 'Ok',
      orders: page,
      hasMore,
      nextUrl: hasMore ? `${baseUrl}/Orders?Top=${top}&Skip=${skip + top}` : null,
    })
  }

  // -------------------------------------------------------------------------------------------
  // The lab's side
  // -------------------------------------------------------------------------------------------

  function actionsOf(order: ProdigiOrder) {
    const open = phases.get(order.id) === 'received' && order.status.stage === 'InProgress'
    const yes = (available: boolean) => ({ isAvailable: available ? ('Yes' as const) : ('No' as const) })
    return {
      cancel: yes(open),
      changeRecipientDetails: yes(open),
      changeShippingMethod: yes(open),
      changeMetaData: yes(true),
    }
  }

  function cancelOrder(order: ProdigiOrder) {
    phases.set(order.id, 'cancelled')
    order.status.stage = 'Cancelled'
    for (const shipment of order.shipments) shipment.status = 'Cancelled'
    touch(order)
    notify(order, 'com.prodigi.order.status.stage.changed#Cancelled')
  }

  function touch(order: ProdigiOrder) {
    order.lastUpdated = new Date().toISOString()
  }

  function notify(order: ProdigiOrder, type: string) {
    if (!order.callbackUrl) return
    const event: ProdigiCallbackEvent = {
      specversion: '1.0',
      type,
      source: `${baseUrl}/Orders/`,
      id: nextId('evt'),
      time: new Date().toISOString(),
      datacontenttype: 'application/json',
      subject: order.id,
      data: { order: structuredClone(order) },
    }
    const delivery: DeliveredCallback = { orderId: order.id, url: order.callbackUrl, event }
    callbacks.push(delivery)
    track(
      fetch(order.callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(event),
        signal: AbortSignal.timeout(10_000),
      }).then(
        async (answer) => {
          delivery.status = answer.status
          await answer.arrayBuffer().catch(() => undefined)
        },
        (error: unknown) => {
          delivery.error = error instanceof Error ? error.message : String(error)
        },
      ),
    )
  }

  function step(order: ProdigiOrder, to: Phase) {
    const d = order.status.details
    const lab = catalogue.get(order.items[0].sku.toUpperCase())?.lab ?? { countryCode: 'GB', labCode: 'uk1' }
    const method = SHIPPING[order.shippingMethod]
    if (to === 'inProduction') {
      d.allocateProductionLocation = 'Complete'
      d.printReadyAssetsPrepared = 'Complete'
      d.inProduction = 'InProgress'
      const shipment: ProdigiShipment = {
        id: nextId('shp'),
        status: 'Processing',
        carrier: { name: method.carrier, service: method.service },
        tracking: null,
        dispatchDate: null,
        items: order.items.map((i) => ({ itemId: i.id })),
        fulfillmentLocation: lab,
      }
      order.shipments.push(shipment)
      const cost = (gbp: number): ProdigiCost => ({ amount: gbp.toFixed(2), currency: ACCOUNT_CURRENCY })
      const itemsGbp = order.items.map((i) => (catalogue.get(i.sku.toUpperCase())?.unitCostGbp ?? 0) * i.copies)
      const total = itemsGbp.reduce((a, b) => a + b, 0) + method.gbp
      order.charges.push({
        id: nextId('chg'),
        chargeType: 'Item',
        prodigiInvoiceNumber: null,
        totalCost: cost(total),
        items: [
          ...order.items.map((i, n) => ({
            id: nextId('chi'),
            shipmentId: null,
            itemId: i.id,
            cost: cost(itemsGbp[n]),
          })),
          { id: nextId('chi'), shipmentId: shipment.id, itemId: null, cost: cost(method.gbp) },
        ],
      })
    } else if (to === 'shipped') {
      d.inProduction = 'Complete'
      d.shipping = 'InProgress'
      for (const shipment of order.shipments) {
        const number = `FAKE${String(++sequence).padStart(10, '0')}`
        shipment.status = 'Shipped'
        shipment.dispatchDate = new Date().toISOString()
        shipment.tracking = {
          number,
          url: `https://tracking.example.test/${shipment.carrier.name.replace(/\s+/g, '')}/${number}`,
        }
      }
    } else if (to === 'complete') {
      for (const key of Object.keys(d) as (keyof typeof d)[]) d[key] = 'Complete'
      order.status.stage = 'Complete'
    }
    phases.set(order.id, to)
    touch(order)
    if (to === 'shipped') notify(order, 'com.prodigi.order.shipments.shipment#Complete')
    if (to === 'complete') notify(order, 'com.prodigi.order.status.stage.changed#Complete')
  }

  const STEPS: Phase[] = ['received', 'inProduction', 'shipped', 'complete']

  return {
    url: server.url,
    baseUrl,
    apiKey,
    catalogue,
    orders,
    requests,
    callbacks,
    assetChecks,
    setFailure(mode, opts = {}) {
      failure = mode ? { mode, left: opts.times ?? Infinity, match: opts.match } : null
    },
    refuseNextCancel() {
      refuseCancel = true
    },
    holdNextCreateAnswer() {
      holdCreateAnswer = true
    },
    async advance(orderId, to) {
      const order = orders.get(orderId)
      if (!order) throw new Error(`Prodigi fake: no order ${orderId}`)
      await downloads.get(orderId)
      const phase = phases.get(orderId)!
      if (phase === 'cancelled' || phase === 'complete') throw new Error(`Prodigi fake: order ${orderId} is ${phase}`)
      if (order.status.details.downloadAssets !== 'Complete') {
        throw new Error(`Prodigi fake: order ${orderId} has assets the lab could not use`)
      }
      const target = to ?? STEPS[STEPS.indexOf(phase) + 1]
      if (STEPS.indexOf(target) <= STEPS.indexOf(phase))
        throw new Error(`Prodigi fake: order ${orderId} is already ${phase}`)
      for (let i = STEPS.indexOf(phase) + 1; i <= STEPS.indexOf(target); i++) step(order, STEPS[i])
      return order
    },
    async cancel(orderId) {
      const order = orders.get(orderId)
      if (!order) throw new Error(`Prodigi fake: no order ${orderId}`)
      if (order.status.stage !== 'InProgress')
        throw new Error(`Prodigi fake: order ${orderId} is ${order.status.stage}`)
      cancelOrder(order)
      return order
    },
    idle,
    close: server.close,
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

type Reply = (status: number, body: Record<string, unknown>, headers?: Record<string, string>) => void | Promise<void>

type Route =
  | { name: 'product' | 'getOrder' | 'actions' | 'cancel'; id: string; takesBody: boolean }
  | {
      name: 'quote' | 'createOrder' | 'listOrders' | 'notFound' | 'methodNotAllowed' | 'notImplemented'
      id?: undefined
      takesBody: boolean
    }

/** Paths are matched case-insensitively: the reference writes both /Orders and /orders. */
function routeOf(method: string, path: string): Route {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
  const lower = parts.map((p) => p.toLowerCase())
  const is = (m: string) => method === m
  const not: Route = { name: 'methodNotAllowed', takesBody: false }
  if (lower[0] !== 'v4.0') return { name: 'notFound', takesBody: false }
  const [, resource, id, sub, action] = lower
  if (resource === 'products' && id && parts.length === 3 && id !== 'spine') {
    return is('GET') ? { name: 'product', id: parts[2], takesBody: false } : not
  }
  if (resource === 'quotes' && parts.length === 2) return is('POST') ? { name: 'quote', takesBody: true } : not
  if (resource === 'orders' && parts.length === 2) {
    if (is('POST')) return { name: 'createOrder', takesBody: true }
    return is('GET') ? { name: 'listOrders', takesBody: false } : not
  }
  if (resource === 'orders' && parts.length === 3)
    return is('GET') ? { name: 'getOrder', id: parts[2], takesBody: false } : not
  if (resource === 'orders' && sub === 'actions' && parts.length === 4) {
    return is('GET') ? { name: 'actions', id: parts[2], takesBody: false } : not
  }
  if (resource === 'orders' && sub === 'actions' && parts.length === 5) {
    if (!is('POST')) return not
    if (action === 'cancel') return { name: 'cancel', id: parts[2], takesBody: false }
    if (['updateshippingmethod', 'updaterecipient', 'updatemetadata'].includes(action)) {
      return { name: 'notImplemented', takesBody: true }
    }
  }
  return { name: 'notFound', takesBody: false }
}

function canonicalMethod(value: unknown): ProdigiShippingMethod | null {
  if (typeof value !== 'string') return null
  return METHODS.find((m) => m.toLowerCase() === value.toLowerCase()) ?? null
}

function header(request: FakeRequest, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

function parseBody(body: Buffer): unknown {
  if (body.length === 0) return undefined
  const text = body.toString('utf8')
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function traceParent(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-00`
}
