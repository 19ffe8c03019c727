import { sql } from 'kysely'
import { maintainAnalytics } from '#domain/analytics/maintenance.server.ts'
import { analyticsSummary } from '#domain/analytics/report.server.ts'
import { addDays } from '#domain/analytics/rollup.server.ts'
import { dateRangeSchema, presetRange, toDateString } from '#domain/analytics/date-range.ts'
import type { DB } from '#platform/db.server.ts'
import { seedEvents, timed } from './analytics.ts'
import { percentile, round } from './lib.ts'

/**
 * Issue 17: the dashboard over ten million events (a year at ~30,000 a day) read from daily
 * rollups, the cron's cost for one day, and what raw-event retention saves.
 */

const EVENTS = 10_000_000
const DAY_EVENTS = 30_000
const RETENTION_DAYS = 30
const CRON_RUNS = 5

const MB = 1024 * 1024

async function sizeOf(db: DB, tables: string[]) {
  const { rows } = await sql<{ bytes: number }>`
    SELECT sum(pg_total_relation_size(name::regclass))::bigint AS bytes FROM unnest(${tables}::text[]) AS name
  `.execute(db)
  return round(rows[0].bytes / MB)
}
const rawTable = ['analytics_events']
const rollupTables = [
  'analytics_rollup_days',
  'analytics_daily_counts',
  'analytics_daily_payment_methods',
  'analytics_daily_locations',
]

const seconds = (started: number) => round((performance.now() - started) / 1000)

/**
 * One cron pass that finds one day to roll up: yesterday, topped up to DAY_EVENTS events, its rollup
 * removed before each run (as when the day has just ended).
 */
async function timeCronForOneDay(db: DB) {
  const yesterday = addDays(toDateString(new Date()), -1)
  const start = new Date(`${yesterday}T00:00:00Z`)
  const { rows } = await sql<{ count: number }>`
    SELECT count(*) AS count FROM analytics_events WHERE created_at >= ${start} AND created_at < ${new Date(start.getTime() + 86_400_000)}
  `.execute(db)
  const missing = Math.max(0, DAY_EVENTS - rows[0].count)
  await sql`
    INSERT INTO analytics_events (type, path, created_at)
    SELECT 'page_view', '/late', ${start}::timestamptz + (g::float8 / ${missing}) * interval '1 day'
    FROM generate_series(0, ${missing - 1}) AS g
  `.execute(db)
  const timings: number[] = []
  for (let run = 0; run < CRON_RUNS; run++) {
    await db.deleteFrom('analytics_rollup_days').where('day', '=', yesterday).execute()
    const started = performance.now()
    const result = await maintainAnalytics(db, { detection: 'new-events' })
    timings.push(performance.now() - started)
    if (result?.rolledUp.join() !== yesterday) throw new Error(`the cron rolled up ${result?.rolledUp.join()}`)
  }
  return timings.sort((a, b) => a - b)
}

export async function benchAnalyticsRollups({ db }: { db: DB }) {
  const benchStarted = performance.now()
  let started = performance.now()
  await seedEvents(db, EVENTS)
  const seeding = seconds(started)
  const rawBefore = await sizeOf(db, rawTable)

  started = performance.now()
  await maintainAnalytics(db, { detection: 'new-events' })
  const backfill = seconds(started)
  started = performance.now()
  await maintainAnalytics(db, { detection: 'fingerprints' })
  const fingerprintCheck = seconds(started)

  const year = dateRangeSchema.parse(presetRange('year'))
  const month = dateRangeSchema.parse(presetRange('month'))
  const summaryYear = await timed(() => analyticsSummary(db, year))
  const summaryMonth = await timed(() => analyticsSummary(db, month))
  const cron = await timeCronForOneDay(db)

  started = performance.now()
  const retention = await maintainAnalytics(db, { detection: 'new-events', retentionDays: RETENTION_DAYS })
  const retentionSeconds = seconds(started)
  await sql`VACUUM ANALYZE analytics_events`.execute(db)
  const rawAfterVacuum = await sizeOf(db, rawTable)
  const summaryYearAfter = await timed(() => analyticsSummary(db, year))
  await sql`VACUUM FULL analytics_events`.execute(db)
  const rawAfterVacuumFull = await sizeOf(db, rawTable)

  return {
    'events seeded (1 year)': EVENTS,
    'seeding (s)': seeding,
    'first rollup pass, 365 days (s)': backfill,
    'analytics:rollup fingerprint check (s)': fingerprintCheck,
    'summary 365 days p50 (ms, target < 100)': round(percentile(summaryYear, 50)),
    'summary 365 days p95 (ms)': round(percentile(summaryYear, 95)),
    'summary 30 days p50 (ms)': round(percentile(summaryMonth, 50)),
    [`cron pass, one day of ${DAY_EVENTS} events, p50 (ms)`]: round(percentile(cron, 50)),
    [`retention ${RETENTION_DAYS} days: events deleted`]: retention?.retention?.deleted ?? 0,
    [`retention ${RETENTION_DAYS} days: deleting (s)`]: retentionSeconds,
    'summary 365 days after retention p50 (ms)': round(percentile(summaryYearAfter, 50)),
    'analytics_events before retention (MB)': rawBefore,
    'analytics_events after retention + VACUUM (MB, space reused)': rawAfterVacuum,
    'analytics_events after VACUUM FULL (MB)': rawAfterVacuumFull,
    'rollup tables (MB)': await sizeOf(db, rollupTables),
    'total (s)': seconds(benchStarted),
  }
}
