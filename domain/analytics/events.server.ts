import { isbot } from 'isbot'
import {
  isDatabaseUnavailable,
  isDatabaseUnreachable,
  noteDatabaseUnreachable,
} from '#platform/database-outage.server.ts'
import type { PaymentProof } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'
import { lookupLocation } from '#platform/geo.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { PAGE_VIEW_BEACON_PATH } from './page-view-path.ts'

/**
 * Recording of analytics events. A request only appends to an in-memory queue; the queue is written
 * in batches (one multi-row INSERT) shortly afterwards, and the visitor's location is looked up at
 * that point. So recording never waits on the database, and a failed write is logged, never thrown.
 */

export type AnalyticsEventType =
  | 'page_view'
  | 'user_register'
  | 'user_login'
  | 'credit_purchase'
  | 'api_call'
  | 'image_generation'
  | 'template_use'
  | 'payment'

interface AnalyticsEvent {
  type: AnalyticsEventType
  userId?: string | null
  path?: string | null
  details?: Record<string, unknown>
  /** The visitor's address (getClientAddress), which gives the location; null or 'unknown' leaves it Unknown. */
  clientIp?: string | null
}

interface QueuedEvent {
  type: AnalyticsEventType
  userId: string | null
  path: string | null
  ip: string | null
  details: Record<string, unknown>
  createdAt: Date
}

const FLUSH_DELAY_MS = 500
const BATCH_SIZE = 500
// Beyond this the database is clearly not keeping up; dropping events protects the process's memory.
const MAX_QUEUED = 20_000

const queue: QueuedEvent[] = []
let flushTimer: ReturnType<typeof setTimeout> | undefined
let writing: Promise<void> = Promise.resolve()
let droppedSinceLastWarning = 0

export function recordEvent(event: AnalyticsEvent) {
  try {
    if (queue.length >= MAX_QUEUED) {
      if (droppedSinceLastWarning++ === 0) console.error('[analytics] queue full: dropping events')
      return
    }
    queue.push({
      type: event.type,
      userId: event.userId ?? null,
      path: event.path ?? null,
      ip: event.clientIp ?? null,
      details: event.details ?? {},
      createdAt: new Date(),
    })
    if (queue.length >= BATCH_SIZE) void flushAnalytics()
    else flushTimer ??= setTimeout(() => void flushAnalytics(), FLUSH_DELAY_MS).unref()
  } catch (error) {
    console.error('[analytics] could not queue an event:', error)
  }
}

/** Writes every queued event; resolves once they are stored (or their failure is logged). Never rejects. */
export function flushAnalytics(): Promise<void> {
  clearTimeout(flushTimer)
  flushTimer = undefined
  writing = writing.then(writeQueue)
  return writing
}

async function writeQueue() {
  while (queue.length > 0) {
    const batch = queue.splice(0, BATCH_SIZE)
    try {
      await insertEvents(await Promise.all(batch.map(toRow)))
    } catch (error) {
      // During a database outage the events are lost; the outage itself is logged once.
      if (isDatabaseUnreachable(error)) noteDatabaseUnreachable('analytics', error)
      else
        console.error(
          `[analytics] could not store ${batch.length} events:`,
          error instanceof Error ? error.message : error,
        )
    }
  }
}

async function toRow({ ip, ...event }: QueuedEvent) {
  const { country, city } = await lookupLocation(ip)
  return {
    type: event.type,
    user_id: event.userId,
    path: event.path,
    country,
    city,
    details: JSON.stringify(event.details),
    created_at: event.createdAt,
  }
}

type EventRow = Awaited<ReturnType<typeof toRow>>

/**
 * One INSERT for the batch. Should a row be refused (its user deleted meanwhile, say), the rows are
 * retried one by one so that only that row is lost.
 */
async function insertEvents(rows: EventRow[]) {
  const db = getDb()
  try {
    await db.insertInto('analytics_events').values(rows).execute()
  } catch (error) {
    if (rows.length === 1 || isDatabaseUnavailable(error)) throw error
    let lost = 0
    // One at a time: a retry must not take every connection of the pool from the requests.
    for (const row of rows) {
      await db
        .insertInto('analytics_events')
        .values(row)
        .execute()
        .catch(() => lost++)
    }
    if (lost > 0) console.error(`[analytics] dropped ${lost} events the database refused:`, (error as Error).message)
  }
}

const isBotRequest = (request: Request) => isbot(request.headers.get('user-agent'))

/** A page seen by a person: a document request or a client-side navigation. Bots are not counted. */
export function recordPageView(request: Request, view: { path: string; userId: string | null }) {
  if (isBotRequest(request)) return
  recordEvent({ type: 'page_view', clientIp: getClientAddress(request), userId: view.userId, path: view.path })
}

/**
 * Requests that are not counted as API calls: the page-view beacon (telemetry, not use of the API)
 * and the reads the UI repeats on its own every 2 s while a task runs (task status, today's tasks,
 * the signed-in user), which would otherwise drown real use and cost a row per poll.
 */
const uncountedApiPaths = [
  new RegExp(`^${PAGE_VIEW_BEACON_PATH}$`),
  /^\/api\/async-(image|video)\/task\/[^/]+$/,
  /^\/api\/async-image\/tasks\/today$/,
  /^\/api\/auth\/me$/,
  // The live stream replaces the task polls above; a tab reopens it every 10 minutes.
  /^\/api\/tasks\/events$/,
  // Stripe's deliveries are not people using the API.
  /^\/api\/stripe\/webhook$/,
]

/** Every /api request except the uncounted ones above; `path` is the request's. */
export function recordApiCall(request: Request, path: string, status: number) {
  if (uncountedApiPaths.some((pattern) => pattern.test(path))) return
  recordEvent({
    type: 'api_call',
    clientIp: getClientAddress(request),
    path,
    details: { method: request.method, status },
  })
}
type SignInMethod = 'password' | 'google'

/** `clientIp` is null where none is at hand (a Google sign-up happens inside the OAuth verify step). */
export function recordRegistration(userId: string, clientIp: string | null, method: SignInMethod) {
  recordEvent({ type: 'user_register', clientIp, userId, details: { method } })
}

export function recordLogin(userId: string, clientIp: string | null, method: SignInMethod) {
  recordEvent({ type: 'user_login', clientIp, userId, details: { method } })
}

/** An image generation task submitted; one started from a gallery template also counts as a template use. */
export function recordImageGeneration(
  userId: string,
  clientIp: string | null,
  task: { taskId: string; fromTemplate: boolean; templateId?: string | null },
) {
  recordEvent({ type: 'image_generation', clientIp, userId, details: { taskId: task.taskId } })
  if (task.fromTemplate) {
    recordEvent({
      type: 'template_use',
      clientIp,
      userId,
      details: { taskId: task.taskId, templateId: task.templateId ?? null },
    })
  }
}

type ProofFacts = Pick<PaymentProof, 'id' | 'user_id' | 'payment_method' | 'amount_cents' | 'credit_amount'>

const paymentDetails = (proof: ProofFacts) => ({
  paymentProofId: proof.id,
  paymentMethod: proof.payment_method,
  /** In USD. */
  amount: proof.amount_cents / 100,
  credits: proof.credit_amount,
})

/** A payment proof submitted: the payment method and amount statistics come from these. */
export function recordPayment(clientIp: string | null, proof: ProofFacts) {
  recordEvent({ type: 'payment', clientIp, userId: proof.user_id, details: paymentDetails(proof) })
}

/** Credits bought: recorded when a superadmin approves the proof (without an address: the reviewer's is not the buyer's). */
export function recordCreditPurchase(proof: ProofFacts) {
  recordEvent({ type: 'credit_purchase', userId: proof.user_id, details: paymentDetails(proof) })
}
