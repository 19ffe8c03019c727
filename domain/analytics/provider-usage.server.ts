import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import type { DateRange } from './date-range.ts'

/**
 * Which image provider made the pictures, and how often a version had to move to the next one
 * (docs/decisions/0033): versions per provider and model, from task_versions made in the range, and
 * failovers per UTC day with their reasons, from provider_failovers.
 */

export interface ProviderUsage {
  versions: Array<{ provider: string | null; model: string | null; count: number }>
  failoversByDay: Array<{ date: string; count: number; reasons: string }>
}

export async function providerUsage(db: DB, range: Pick<DateRange, 'start' | 'end'>): Promise<ProviderUsage> {
  const [versions, failovers] = await Promise.all([
    db
      .selectFrom('task_versions')
      .select(['provider', 'model', (eb) => eb.fn.countAll<number>().as('count')])
      .where('created_at', '>=', range.start)
      .where('created_at', '<', range.end)
      .groupBy(['provider', 'model'])
      .orderBy('count', 'desc')
      .execute(),
    sql<{ date: string; reason: string; count: number }>`
      SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, reason, count(*)::int AS count
      FROM provider_failovers
      WHERE created_at >= ${range.start} AND created_at < ${range.end}
      GROUP BY 1, 2 ORDER BY 1, 3 DESC
    `.execute(db),
  ])
  const days = new Map<string, { count: number; reasons: string[] }>()
  for (const row of failovers.rows) {
    const day = days.get(row.date) ?? { count: 0, reasons: [] }
    day.count += row.count
    day.reasons.push(`${row.reason} ${row.count}`)
    days.set(row.date, day)
  }
  return {
    versions: versions.map((row) => ({ provider: row.provider, model: row.model, count: Number(row.count) })),
    failoversByDay: [...days].map(([date, day]) => ({ date, count: day.count, reasons: day.reasons.join(', ') })),
  }
}
