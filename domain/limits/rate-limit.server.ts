import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { HttpError } from '#domain/http-error.server.ts'

/**
 * At most `limit` hits per fixed window of `windowSeconds` for one key (e.g. `login:ip:192.0.2.1`).
 * `name` is the limit's name without its subject (`login:ip`): what logs, metrics and the status
 * page show, never an address or an email.
 */
export interface RateLimit {
  name: string
  key: string
  limit: number
  windowSeconds: number
}

/** The limit `name` for one subject (a client limit key, a mailbox, an account). */
export const rateLimit = (name: string, subject: string, limit: number, windowSeconds: number): RateLimit => ({
  name,
  key: `${name}:${subject}`,
  limit,
  windowSeconds,
})

/** A 429 with Retry-After, counted in pawtrait_rate_limited_total under the limit's name. */
export function tooManyRequests(name: string, retryAt: Date, message: (seconds: number) => string) {
  getMetrics().rateLimited.inc({ limit: name })
  const seconds = Math.max(1, Math.ceil((retryAt.getTime() - Date.now()) / 1000))
  return new HttpError(429, message(seconds), { headers: { 'Retry-After': String(seconds) } })
}

/** "N minutes" (at least one), or "N seconds" under a minute when `seconds` is allowed. */
export function waitText(seconds: number, { seconds: showSeconds = false } = {}) {
  if (showSeconds && seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`
  const minutes = Math.max(1, Math.ceil(seconds / 60))
  return `${minutes} minute${minutes === 1 ? '' : 's'}`
}

const tryAgain = (name: string, windowEndsAt: Date) =>
  tooManyRequests(name, windowEndsAt, (seconds) => `Too many attempts, please try again in ${waitText(seconds)}`)

/**
 * Counts one hit against each limit. The counters live in PostgreSQL and each is bumped by a
 * single upsert (restarting the window once it has ended), so several web machines agree.
 * Answers the limits that are now exceeded, with when their windows end. The hit that fills a
 * window logs one warning, so an operator sees each limit that trips once, not each refusal.
 */
export async function countHits(db: DB, limits: readonly RateLimit[]) {
  const exceeded: Array<{ name: string; windowEndsAt: Date }> = []
  for (const { name, key, limit, windowSeconds } of limits) {
    const { rows } = await sql<{ hits: number; window_ends_at: Date }>`
      INSERT INTO rate_limits (key, hits, window_ends_at, name, max_hits)
      VALUES (${key}, 1, now() + make_interval(secs => ${windowSeconds}), ${name}, ${limit})
      ON CONFLICT (key) DO UPDATE SET
        hits = CASE WHEN rate_limits.window_ends_at <= now() THEN 1 ELSE rate_limits.hits + 1 END,
        window_ends_at = CASE WHEN rate_limits.window_ends_at <= now()
          THEN excluded.window_ends_at ELSE rate_limits.window_ends_at END,
        name = excluded.name,
        max_hits = excluded.max_hits
      RETURNING hits, window_ends_at
    `.execute(db)
    const { hits, window_ends_at: windowEndsAt } = rows[0]
    if (hits === limit) getLogger().warn({ limit: name, max: limit, until: windowEndsAt }, 'rate limit reached')
    if (hits > limit) exceeded.push({ name, windowEndsAt })
  }
  return exceeded
}

/** Counts one hit against each limit and answers 429 when any of them is exceeded. */
export async function consumeRateLimits(db: DB, limits: readonly RateLimit[]) {
  const [first] = await countHits(db, limits)
  if (first) throw tryAgain(first.name, first.windowEndsAt)
}

/** Answers 429 when any limit is already used up, without counting a hit (for counting failures only). */
export async function assertWithinRateLimits(db: DB, limits: readonly RateLimit[]) {
  if (limits.length === 0) return
  const full = await db
    .selectFrom('rate_limits')
    .select(['key', 'hits', 'window_ends_at'])
    .where(
      'key',
      'in',
      limits.map((limit) => limit.key),
    )
    .where('window_ends_at', '>', sql<Date>`now()`)
    .execute()
  for (const row of full) {
    const limit = limits.find((candidate) => candidate.key === row.key)
    if (limit && row.hits >= limit.limit) throw tryAgain(limit.name, row.window_ends_at)
  }
}

/** Limits tripped now (a counter at or past its ceiling), by name, for the status page. */
export async function trippedRateLimits(db: DB) {
  const rows = await db
    .selectFrom('rate_limits')
    .select(['name', (eb) => eb.fn.countAll<string>().as('subjects')])
    .where('window_ends_at', '>', sql<Date>`now()`)
    .where('name', 'is not', null)
    .whereRef('hits', '>=', 'max_hits')
    .groupBy('name')
    .orderBy('name')
    .execute()
  return rows.map((row) => ({ name: row.name ?? '', subjects: Number(row.subjects) }))
}

export async function deleteExpiredRateLimits(db: DB) {
  const result = await db
    .deleteFrom('rate_limits')
    .where('window_ends_at', '<=', sql<Date>`now()`)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
