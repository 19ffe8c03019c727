import { type RawBuilder, sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { toDateString } from '#domain/analytics/date-range.ts'
import type { AnalyticsEventType } from '#domain/analytics/events.server.ts'
import { cityLabel, countryLabel, type LocationCount, paymentMethodLabel } from '#domain/analytics/grouping.server.ts'

/**
 * The dashboard's totals over any span of time, at a cost that does not grow with traffic: each
 * whole UTC day that has a rollup is read from the daily rollup tables (one row group per day),
 * everything else (the partial days at the span's edges, today, a day not rolled up yet) from the
 * raw events. The two never overlap, so the sums are exact.
 */

const DAY_MS = 24 * 60 * 60 * 1000

export interface TimeSpan {
  /** Inclusive. */
  start: Date
  /** Exclusive. */
  end: Date
}

export interface DashboardTotals {
  typeCounts: Array<{ type: string; count: number }>
  perDay: Array<{ date: string; count: number }>
  paymentMethods: Array<{ method: string; count: number }>
  locations: LocationCount[]
}

interface Sources {
  rolledDays: string[]
  rawSpans: TimeSpan[]
}

const dayStart = (day: string) => new Date(`${day}T00:00:00.000Z`)

/** The rolled-up whole days inside the span, and the pieces of time around them to read raw. */
async function sourcesOf(db: DB, span: TimeSpan): Promise<Sources> {
  if (span.start >= span.end) return { rolledDays: [], rawSpans: [] }
  const startsAtMidnight = span.start.getTime() % DAY_MS === 0
  const firstWholeDay = toDateString(new Date(span.start.getTime() + (startsAtMidnight ? 0 : DAY_MS)))
  const endDay = toDateString(span.end) // exclusive: the day `end` falls in is at most partly inside
  const rolledDays =
    firstWholeDay < endDay
      ? (
          await db
            .selectFrom('analytics_rollup_days')
            .select('day')
            .where('day', '>=', firstWholeDay)
            .where('day', '<', endDay)
            .orderBy('day')
            .execute()
        ).map((row) => row.day)
      : []
  const rawSpans: TimeSpan[] = []
  let cursor = span.start
  for (const day of rolledDays) {
    if (dayStart(day) > cursor) rawSpans.push({ start: cursor, end: dayStart(day) })
    cursor = new Date(dayStart(day).getTime() + DAY_MS)
  }
  if (cursor < span.end) rawSpans.push({ start: cursor, end: span.end })
  return { rolledDays, rawSpans }
}

/** `SELECT … FROM (rollup rows UNION ALL raw rows)`: either part is left out when it has nothing to read. */
function combine(
  sources: Sources,
  parts: {
    rolled: (inDays: RawBuilder<unknown>) => RawBuilder<unknown>
    raw: (inSpans: RawBuilder<unknown>) => RawBuilder<unknown>
  },
) {
  const selects: Array<RawBuilder<unknown>> = []
  if (sources.rolledDays.length > 0) selects.push(parts.rolled(sql`day = ANY(${sources.rolledDays}::date[])`))
  if (sources.rawSpans.length > 0) {
    const spans = sources.rawSpans.map((span) => sql`(created_at >= ${span.start} AND created_at < ${span.end})`)
    selects.push(parts.raw(sql`(${sql.join(spans, sql` OR `)})`))
  }
  return sql.join(selects, sql` UNION ALL `)
}

/**
 * Counts of `countTypes`, the per-day count of `perDayType`, payments per method and page views per
 * place (busiest first, at most `locationLimit`), over the span.
 */
export async function dashboardTotals(
  db: DB,
  span: TimeSpan,
  options: { countTypes: readonly AnalyticsEventType[]; perDayType: AnalyticsEventType; locationLimit?: number },
): Promise<DashboardTotals> {
  const sources = await sourcesOf(db, span)
  if (sources.rolledDays.length === 0 && sources.rawSpans.length === 0) {
    return { typeCounts: [], perDay: [], paymentMethods: [], locations: [] }
  }
  const types = [...options.countTypes]
  const typeCounts = combine(sources, {
    rolled: (inDays) => sql`SELECT type, count FROM analytics_daily_counts WHERE ${inDays} AND type = ANY(${types})`,
    raw: (inSpans) =>
      sql`SELECT type, count(*) AS count FROM analytics_events WHERE type = ANY(${types}) AND ${inSpans} GROUP BY type`,
  })
  const perDay = combine(sources, {
    rolled: (inDays) =>
      sql`SELECT day AS day, count FROM analytics_daily_counts WHERE ${inDays} AND type = ${options.perDayType}`,
    raw: (inSpans) =>
      sql`SELECT (created_at AT TIME ZONE 'UTC')::date AS day, count(*) AS count FROM analytics_events
        WHERE type = ${options.perDayType} AND ${inSpans} GROUP BY 1`,
  })
  const methods = combine(sources, {
    rolled: (inDays) => sql`SELECT method, count FROM analytics_daily_payment_methods WHERE ${inDays}`,
    raw: (inSpans) =>
      sql`SELECT ${paymentMethodLabel} AS method, count(*) AS count FROM analytics_events
        WHERE type = 'payment' AND ${inSpans} GROUP BY 1`,
  })
  const places = combine(sources, {
    rolled: (inDays) => sql`SELECT country, city, count FROM analytics_daily_locations WHERE ${inDays}`,
    raw: (inSpans) =>
      sql`SELECT ${countryLabel} AS country, ${cityLabel} AS city, count(*) AS count FROM analytics_events
        WHERE type = 'page_view' AND ${inSpans} GROUP BY 1, 2`,
  })
  const limit = options.locationLimit === undefined ? sql`` : sql`LIMIT ${options.locationLimit}`

  const [counted, daily, paymentMethods, locations] = await Promise.all([
    sql<DashboardTotals['typeCounts'][number]>`
      SELECT type, sum(count)::bigint AS count FROM (${typeCounts}) parts GROUP BY type
    `.execute(db),
    sql<DashboardTotals['perDay'][number]>`
      SELECT to_char(day, 'YYYY-MM-DD') AS date, sum(count)::bigint AS count FROM (${perDay}) parts
      GROUP BY day ORDER BY day
    `.execute(db),
    sql<DashboardTotals['paymentMethods'][number]>`
      SELECT method, sum(count)::bigint AS count FROM (${methods}) parts
      GROUP BY method ORDER BY count DESC, method
    `.execute(db),
    sql<LocationCount>`
      SELECT country, city, sum(count)::bigint AS count FROM (${places}) parts
      GROUP BY country, city ORDER BY count DESC, country, city ${limit}
    `.execute(db),
  ])
  return {
    typeCounts: counted.rows,
    perDay: daily.rows,
    paymentMethods: paymentMethods.rows,
    locations: locations.rows,
  }
}
