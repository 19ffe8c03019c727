import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { type DateRange, toDateString } from '#domain/analytics/date-range.ts'
import { addDays, dayStart, eventTypes, readRollupState } from '#domain/analytics/rollup.server.ts'

/**
 * Raw-event retention (ANALYTICS_RAW_RETENTION_DAYS): events of days older than the retention are
 * deleted once their day is rolled up, in small batches so that no statement holds many row locks
 * or runs long. The boundary (analytics_rollup_state.raw_events_since) moves first: from then on
 * the overview answers records only from it on, and those days' rollups are never recomputed.
 */

const BATCH_SIZE = 5_000

export interface RetentionResult {
  /** The first day whose raw events are kept, or null when nothing may be deleted yet. */
  keptSince: string | null
  deleted: number
  /** False when the time budget ran out first: the next pass continues. */
  done: boolean
}

/**
 * The retention boundary for today: `retentionDays` days back, but never past a day that has no
 * rollup (nothing is deleted that only the raw events still count).
 */
async function boundaryFor(db: DB, retentionDays: number, now: Date): Promise<string | null> {
  const wanted = addDays(toDateString(now), -retentionDays)
  const { rows } = await sql<{ first: string | null; gap: string | null }>`
    SELECT min(day) AS first,
      (SELECT min(d::date) FROM generate_series(min(day), ${wanted}::date - 1, interval '1 day') d
        WHERE NOT EXISTS (SELECT 1 FROM analytics_rollup_days r WHERE r.day = d::date)) AS gap
    FROM analytics_rollup_days
  `.execute(db)
  const { first, gap } = rows[0]
  if (first === null) return null
  return gap ?? wanted
}

export async function deleteExpiredRawEvents(
  db: DB,
  options: { retentionDays: number; now?: Date; budgetMs?: number },
): Promise<RetentionResult> {
  const started = performance.now()
  const boundary = await boundaryFor(db, options.retentionDays, options.now ?? new Date())
  const { raw_events_since: current } = await readRollupState(db)
  const keptSince = current !== null && (boundary === null || current > boundary) ? current : boundary
  if (keptSince === null) return { keptSince: null, deleted: 0, done: true }
  if (keptSince !== current) {
    await db.updateTable('analytics_rollup_state').set({ raw_events_since: keptSince }).execute()
  }

  const cutoff = dayStart(keptSince)
  const types = await sql<{ type: string }>`${eventTypes}`.execute(db)
  let deleted = 0
  for (const { type } of types.rows) {
    // Oldest first through the (type, created_at) index, from where the last batch stopped: each
    // batch reads only its own rows, not the ones deleted before it.
    let cursor: string | null = null
    for (;;) {
      if (options.budgetMs !== undefined && performance.now() - started > options.budgetMs) {
        return { keptSince, deleted, done: false }
      }
      // By ctid (a TID scan): a join on id would let the planner scan the whole table per batch.
      const { rows } = await sql<{ count: number; last: string | null }>`
        WITH gone AS (
          DELETE FROM analytics_events WHERE ctid = ANY(ARRAY(
            SELECT ctid FROM analytics_events
            WHERE type = ${type} AND created_at < ${cutoff}
              ${cursor === null ? sql`` : sql`AND created_at >= ${cursor}::timestamptz`}
            ORDER BY created_at LIMIT ${BATCH_SIZE}
          ))
          RETURNING created_at
        )
        SELECT count(*) AS count, max(created_at)::text AS last FROM gone
      `.execute(db)
      deleted += rows[0].count
      if (rows[0].count < BATCH_SIZE) break
      cursor = rows[0].last
    }
  }
  return { keptSince, deleted, done: true }
}

/**
 * The part of a dashboard range whose raw events are all still kept, and, when retention cut the
 * range short, the first date that part covers (the overview's `recordsFrom`).
 */
export async function keptPartOf(db: DB, range: DateRange): Promise<{ range: DateRange; recordsFrom: string | null }> {
  const { raw_events_since: since } = await readRollupState(db)
  if (since === null || since <= range.startDate) return { range, recordsFrom: null }
  const start = dayStart(since)
  const days = Math.max(0, Math.round((range.end.getTime() - start.getTime()) / (24 * 60 * 60 * 1000)))
  return { range: { ...range, startDate: since, start, days }, recordsFrom: since }
}
