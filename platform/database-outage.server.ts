import type { LogEvent } from 'kysely'
import { getLogger } from './logger.server.ts'
import { getMetrics } from './metrics.server.ts'
import { hasNetworkCode, someWrapped } from './network-errors.server.ts'

/**
 * The one rule for "the database cannot be reached right now" (a failover, a restart, a network
 * blip), and what each process does about it: the web answers 503 with Retry-After, the worker
 * waits (worker/patient-pool.ts). An outage is logged once when it starts and once when it ends,
 * never per failed query or reconnect, and shows as `pawtrait_database_unreachable` 1.
 *
 * The rule is decided at the source: the pool and client of platform/db.server.ts pass every error
 * node-postgres hands back through `tagDatabaseError`, and everywhere else only that tag counts. So
 * a provider, S3 or Google refusing or resetting a connection is never taken for a database outage.
 */

/** PostgreSQL's admin_shutdown, crash_shutdown, cannot_connect_now and class 08 (connection). */
const POSTGRES_UNREACHABLE_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006'])

/** pg's error for a query unanswered within its client-side `query_timeout` (db.server.ts). */
const QUERY_TIMEOUT_MESSAGE = 'Query read timeout'

/**
 * What node-postgres throws without a code: a dropped socket, a connection that timed out being
 * made, a query unanswered in time, and a query on a connection closed after one (a transaction's
 * ROLLBACK after its query timed out).
 */
const UNREACHABLE_MESSAGES = [
  /connection terminated/i,
  /client has encountered a connection error/i,
  /cannot use a pool after calling end/i,
  new RegExp(`^${QUERY_TIMEOUT_MESSAGE}$`),
  /client was closed and is not queryable/i,
]

/** A query the server did not answer within the client's query_timeout: its connection is no longer usable. */
export function isQueryTimeout(error: unknown) {
  return error instanceof Error && error.message === QUERY_TIMEOUT_MESSAGE
}

/**
 * pg-pool's error when a full pool had no connection come free within connectionTimeoutMillis. A
 * new connection that cannot be made fails differently ("Connection terminated due to connection
 * timeout"), so this one means busy, not away.
 */
const POOL_EXHAUSTED_MESSAGE = 'timeout exceeded when trying to connect'

type DatabaseTrouble = 'unreachable' | 'pool exhausted'

const tags = new WeakMap<object, DatabaseTrouble>()

/** For an error node-postgres handed back (db.server.ts only): tags it, and answers the tag, when it means trouble. */
export function tagDatabaseError(error: unknown): DatabaseTrouble | undefined {
  if (!error || typeof error !== 'object') return undefined
  if (!tags.has(error)) {
    if ((error as { message?: unknown }).message === POOL_EXHAUSTED_MESSAGE) tags.set(error, 'pool exhausted')
    else if (someWrapped(error, hasUnreachableSign)) tags.set(error, 'unreachable')
  }
  return tags.get(error)
}

/** A socket error (network-errors.server.ts), or PostgreSQL or node-postgres saying the connection is gone. */
function hasUnreachableSign(error: object) {
  if (hasNetworkCode(error)) return true
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && POSTGRES_UNREACHABLE_CODES.has(code)) return true
  return typeof message === 'string' && UNREACHABLE_MESSAGES.some((pattern) => pattern.test(message))
}

/** A database error tagged unreachable where it arose, or an error that wraps one. */
export function isDatabaseUnreachable(error: unknown): boolean {
  return someWrapped(error, (inner) => tags.get(inner) === 'unreachable')
}

/** Every connection of the pool stayed busy: the database answers, this process asked too much of it. */
export function isDatabasePoolExhausted(error: unknown): boolean {
  return someWrapped(error, (inner) => tags.get(inner) === 'pool exhausted')
}

/** Either of the two: the query was not wrong, the database or a connection to it was not there. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return someWrapped(error, (inner) => tags.has(inner))
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

/** The pool-exhausted warning is written at most this often; the counter counts every refusal. */
const POOL_EXHAUSTED_LOG_INTERVAL_MS = 10_000
let poolExhaustedLoggedAt = 0

/** A caller got no connection, every one of the pool's staying busy: counted each time, never an outage. */
export function notePoolExhausted(pool: { totalCount: number; waitingCount: number }) {
  getMetrics().databasePoolExhausted.inc()
  // A burst of refused requests would otherwise write a line each.
  if (Date.now() - poolExhaustedLoggedAt < POOL_EXHAUSTED_LOG_INTERVAL_MS) return
  poolExhaustedLoggedAt = Date.now()
  getLogger().warn(
    { connections: pool.totalCount, waiting: pool.waitingCount },
    'database pool exhausted: no connection came free in time (not an outage: the database answers)',
  )
}

/** Kysely's query log: every query tells whether the database answers. */
export function observeQuery(event: LogEvent) {
  if (event.level === 'query') noteDatabaseReachable(Date.now() - event.queryDurationMillis)
  else if (isDatabaseUnreachable(event.error)) noteDatabaseUnreachable('query', event.error)
}

/** For a pg pool's and its clients' 'error' events (a dropped connection): an outage is noted once, else logged. */
export function reportPoolError(error: Error) {
  if (tagDatabaseError(error) === 'unreachable') noteDatabaseUnreachable('pool', error)
  else getLogger().error({ err: error }, 'database connection error')
}
