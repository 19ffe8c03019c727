import type { LogEvent } from 'kysely'
import { getLogger } from './logger.server.ts'
import { getMetrics } from './metrics.server.ts'

/**
 * The one rule for "the database cannot be reached right now" (a failover, a restart, a network
 * blip), and what each process does about it: the web answers 503 with Retry-After, the worker
 * waits (worker/patient-pool.ts). An outage is logged once when it starts and once when it ends,
 * never per failed query or reconnect, and shows as `pawtrait_database_unreachable` 1.
 */

/** Socket errors, and PostgreSQL's admin_shutdown, crash_shutdown, cannot_connect_now and class 08 (connection). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
])

/** What node-postgres throws without a code: a dropped socket, its connection timeout. */
const UNREACHABLE_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /client has encountered a connection error/i,
  /cannot use a pool after calling end/i,
]

export const RETRY_AFTER_SECONDS = 5

export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false
  const { code, message, cause, errors } = error as {
    code?: unknown
    message?: unknown
    cause?: unknown
    errors?: unknown
  }
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true
  if (typeof message === 'string' && UNREACHABLE_MESSAGES.some((pattern) => pattern.test(message))) return true
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnreachable(inner, depth + 1))) return true
  return isDatabaseUnreachable(cause, depth + 1)
}

/** What every process's HTTP side answers while the database is away (the web wraps it in an HttpError). */
export interface ServiceUnavailable {
  status: 503
  message: string
  headers: Record<string, string>
}

export function serviceUnavailable(): ServiceUnavailable {
  return {
    status: 503,
    message: 'The service is briefly unavailable. Please try again in a few seconds.',
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  }
}

/** The 503 to answer instead of `error`, when the error means the database is out of reach; else null. */
export function asServiceUnavailable(error: unknown): ServiceUnavailable | null {
  if (!isDatabaseUnreachable(error)) return null
  noteDatabaseUnreachable('request', error)
  return serviceUnavailable()
}

/** When the current outage began, in this process; null while the database answers. */
let outageSince: number | null = null

export function noteDatabaseUnreachable(source: string, error: unknown) {
  if (outageSince !== null) return
  outageSince = Date.now()
  getMetrics().databaseUnreachable.set(1)
  getMetrics().databaseOutages.inc()
  const reason = error instanceof Error ? error.message || (error as { code?: string }).code : String(error)
  getLogger().error({ source, reason }, 'database unreachable; waiting for it to come back (logged once per outage)')
}

/** A query that started at `queryStartedAt` succeeded: an outage that began before it is over. */
function noteDatabaseReachable(queryStartedAt: number) {
  // A query already under way when the outage began may still answer: that ends nothing.
  if (outageSince === null || queryStartedAt < outageSince) return
  const seconds = Math.round((Date.now() - outageSince) / 100) / 10
  outageSince = null
  getMetrics().databaseUnreachable.set(0)
  getLogger().warn({ outageSeconds: seconds }, `database reachable again after ${seconds} s`)
}

/** Kysely's query log: every query tells whether the database answers. */
export function observeQuery(event: LogEvent) {
  if (event.level === 'query') noteDatabaseReachable(Date.now() - event.queryDurationMillis)
  else if (isDatabaseUnreachable(event.error)) noteDatabaseUnreachable('query', event.error)
}

/** For a pg pool's 'error' events (an idle connection dropped): an outage is noted once, anything else logged. */
export function reportPoolError(error: Error) {
  if (isDatabaseUnreachable(error)) noteDatabaseUnreachable('pool', error)
  else getLogger().error({ err: error }, 'database connection error')
}
