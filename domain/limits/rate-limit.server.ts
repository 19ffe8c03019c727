import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { HttpError } from '#domain/http-error.server.ts'

/** At most `limit` hits per fixed window of `windowSeconds` for one key (e.g. `login:ip:1.2.3.4`). */
export interface RateLimit {
  key: string
  limit: number
  windowSeconds: number
}

const tooManyRequests = (windowEndsAt: Date) => {
  const minutes = Math.max(1, Math.ceil((windowEndsAt.getTime() - Date.now()) / 60_000))
  return new HttpError(429, `Too many attempts, please try again in ${minutes} minute${minutes === 1 ? '' : 's'}`)
}

/**
 * Counts one hit against each limit. The counters live in PostgreSQL and each is bumped by a
 * single upsert (restarting the window once it has ended), so several web machines agree.
 * Answers the limits that are now exceeded, with when their windows end.
 */
export async function countHits(db: DB, limits: readonly RateLimit[]) {
  const exceeded: Date[] = []
  for (const { key, limit, windowSeconds } of limits) {
    const { rows } = await sql<{ hits: number; window_ends_at: Date }>`
      INSERT INTO rate_limits (key, hits, window_ends_at)
      VALUES (${key}, 1, now() + make_interval(secs => ${windowSeconds}))
      ON CONFLICT (key) DO UPDATE SET
        hits = CASE WHEN rate_limits.window_ends_at <= now() THEN 1 ELSE rate_limits.hits + 1 END,
        window_ends_at = CASE WHEN rate_limits.window_ends_at <= now()
          THEN excluded.window_ends_at ELSE rate_limits.window_ends_at END
      RETURNING hits, window_ends_at
    `.execute(db)
    if (rows[0].hits > limit) exceeded.push(rows[0].window_ends_at)
  }
  return exceeded
}

/** Counts one hit against each limit and answers 429 when any of them is exceeded. */
export async function consumeRateLimits(db: DB, limits: readonly RateLimit[]) {
  const [first] = await countHits(db, limits)
  if (first) throw tooManyRequests(first)
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
  const blocked = full.find((row) => row.hits >= (limits.find((limit) => limit.key === row.key)?.limit ?? Infinity))
  if (blocked) throw tooManyRequests(blocked.window_ends_at)
}

export async function deleteExpiredRateLimits(db: DB) {
  const result = await db
    .deleteFrom('rate_limits')
    .where('window_ends_at', '<=', sql<Date>`now()`)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
