import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { toDateString } from '#domain/analytics/date-range.ts'
import { cityLabel, countryLabel, eventDay, paymentMethodLabel } from '#domain/analytics/grouping.server.ts'

/**
 * Daily rollups of the analytics events, so that the dashboard reads one row group per day instead
 * of every event. A past UTC day is rolled up as a whole, inside one repeatable-read transaction,
 * together with the fingerprint of the raw events it came from (how many, the highest id); today is
 * never rolled up (the dashboard reads it raw). Recomputing a day replaces its rows, so rolling up
 * twice gives the same rows. Days before the raw-retention boundary are frozen: their raw events
 * are (being) deleted, and their rollup is all that is left of them.
 */

const DAY_MS = 24 * 60 * 60 * 1000
// pg_advisory_lock key of a rollup or retention pass: passes never run side by side.
const ROLLUP_LOCK = 1_700_017

export const dayStart = (day: string) => new Date(`${day}T00:00:00.000Z`)
export const addDays = (day: string, days: number) => toDateString(new Date(dayStart(day).getTime() + days * DAY_MS))

/** Every event type in the table, found by skipping through the (type, created_at) index. */
export const eventTypes = sql`
  WITH RECURSIVE types(type) AS (
    SELECT min(type) FROM analytics_events
    UNION ALL
    SELECT (SELECT min(type) FROM analytics_events WHERE type > types.type) FROM types WHERE types.type IS NOT NULL
  )
  SELECT type FROM types WHERE type IS NOT NULL
`

/** Recomputes one past day's rollup from its raw events (idempotent). */
export async function rollUpDay(db: DB, day: string) {
  const start = dayStart(day)
  const end = dayStart(addDays(day, 1))
  await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (tx) => {
      // Per type through the (type, created_at) index: a day's events, never the whole table.
      const { rows: perType } = await sql<{ type: string; count: number; max_id: number }>`
        SELECT t.type, c.count, c.max_id FROM (${eventTypes}) t
        CROSS JOIN LATERAL (
          SELECT count(*) AS count, max(id) AS max_id FROM analytics_events
          WHERE type = t.type AND created_at >= ${start} AND created_at < ${end}
        ) c
        WHERE c.count > 0
      `.execute(tx)
      await tx.deleteFrom('analytics_rollup_days').where('day', '=', day).execute()
      await tx
        .insertInto('analytics_rollup_days')
        .values({
          day,
          event_count: perType.reduce((total, row) => total + row.count, 0),
          max_event_id: perType.length > 0 ? Math.max(...perType.map((row) => row.max_id)) : null,
        })
        .execute()
      if (perType.length === 0) return
      await tx
        .insertInto('analytics_daily_counts')
        .values(perType.map((row) => ({ day, type: row.type, count: row.count })))
        .execute()
      await sql`
        INSERT INTO analytics_daily_payment_methods (day, method, count)
        SELECT ${day}::date, ${paymentMethodLabel}, count(*) FROM analytics_events
        WHERE type = 'payment' AND created_at >= ${start} AND created_at < ${end} GROUP BY 2
      `.execute(tx)
      await sql`
        INSERT INTO analytics_daily_locations (day, country, city, count)
        SELECT ${day}::date, ${countryLabel}, ${cityLabel}, count(*) FROM analytics_events
        WHERE type = 'page_view' AND created_at >= ${start} AND created_at < ${end} GROUP BY 2, 3
      `.execute(tx)
    })
}

export async function readRollupState(db: DB) {
  return db
    .selectFrom('analytics_rollup_state')
    .select(['checked_through_id', 'raw_events_since'])
    .executeTakeFirstOrThrow()
}

/**
 * Runs `pass` holding the rollup lock on a connection of its own; answers null without running it
 * when another pass (the cron, `npm run analytics:rollup`) holds the lock.
 */
export async function withRollupLock<T>(db: DB, pass: () => Promise<T>): Promise<T | null> {
  return db.connection().execute(async (connection) => {
    const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(${ROLLUP_LOCK}) AS locked`.execute(
      connection,
    )
    if (!rows[0].locked) return null
    try {
      return await pass()
    } finally {
      await sql`SELECT pg_advisory_unlock(${ROLLUP_LOCK})`.execute(connection)
    }
  })
}

export type ChangeDetection =
  /** The cron's cheap check: days of the events added since the last pass (by id), and days never rolled up. */
  | 'new-events'
  /** Compares every day's raw-event fingerprint with its rollup's: also catches deletions and restores. */
  | 'fingerprints'

/**
 * Rolls up every past day (before `now`'s UTC day, from the retention boundary on) whose rollup is
 * missing or out of date; answers the days it rolled up, oldest first.
 */
export async function rollUpChangedDays(db: DB, detection: ChangeDetection, now = new Date()): Promise<string[]> {
  const today = toDateString(now)
  const state = await readRollupState(db)
  const since = state.raw_events_since
  const { highestId } = await db
    .selectFrom('analytics_events')
    .select((eb) => eb.fn.max('id').as('highestId'))
    .executeTakeFirstOrThrow()

  const changed =
    detection === 'new-events'
      ? await daysWithNewEvents(db, state.checked_through_id, highestId)
      : await daysWithChangedFingerprints(db, since, today)
  const stale = new Set(changed.filter((day) => day < today && (since === null || day >= since)))
  for (const day of await daysNeverRolledUp(db, [...stale], since, today)) stale.add(day)

  const days = [...stale].sort()
  for (const day of days) await rollUpDay(db, day)
  if (highestId !== null && Number(highestId) > state.checked_through_id) {
    await db
      .updateTable('analytics_rollup_state')
      .set({ checked_through_id: Number(highestId) })
      .execute()
  }
  return days
}

async function daysWithNewEvents(db: DB, checkedThroughId: number, highestId: string | number | null) {
  if (highestId === null || Number(highestId) <= checkedThroughId) return []
  const rows = await db
    .selectFrom('analytics_events')
    .select(eventDay.as('day'))
    .distinct()
    .where('id', '>', String(checkedThroughId))
    .where('id', '<=', String(highestId))
    .execute()
  return rows.map((row) => row.day)
}

async function daysWithChangedFingerprints(db: DB, since: string | null, today: string) {
  const { rows } = await sql<{ day: string }>`
    WITH raw AS (
      SELECT ${eventDay} AS day, count(*) AS event_count, max(id) AS max_event_id FROM analytics_events
      WHERE created_at < ${dayStart(today)} ${since === null ? sql`` : sql`AND created_at >= ${dayStart(since)}`}
      GROUP BY 1
    )
    SELECT coalesce(raw.day, rolled.day) AS day FROM raw
    FULL JOIN (
      SELECT day, event_count, max_event_id FROM analytics_rollup_days
      WHERE day < ${today}::date ${since === null ? sql`` : sql`AND day >= ${since}::date`}
    ) rolled ON rolled.day = raw.day
    WHERE raw.day IS NULL AND rolled.event_count > 0
      OR rolled.day IS NULL
      OR raw.event_count <> rolled.event_count
      OR raw.max_event_id IS DISTINCT FROM rolled.max_event_id
  `.execute(db)
  return rows.map((row) => row.day)
}

/**
 * The days without events still need a (zero) rollup, so that the dashboard reads a year as one
 * block of rolled-up days: every day from the first known one to yesterday that has no rollup.
 */
async function daysNeverRolledUp(db: DB, changed: string[], since: string | null, today: string) {
  const { first } = await db
    .selectFrom('analytics_rollup_days')
    .select((eb) => eb.fn.min('day').as('first'))
    .executeTakeFirstOrThrow()
  const candidates = [...changed, ...(first ? [first] : [])].sort()
  let from = candidates[0]
  if (from === undefined) return []
  if (since !== null && from < since) from = since
  const { rows } = await sql<{ day: string }>`
    SELECT d::date AS day FROM generate_series(${from}::date, ${today}::date - 1, interval '1 day') d
    WHERE NOT EXISTS (SELECT 1 FROM analytics_rollup_days r WHERE r.day = d::date)
  `.execute(db)
  return rows.map((row) => row.day)
}
