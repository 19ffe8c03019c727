import type { DB } from '#platform/db.server.ts'
import { type ChangeDetection, rollUpChangedDays, withRollupLock } from '#domain/analytics/rollup.server.ts'
import { deleteExpiredRawEvents, type RetentionResult } from '#domain/analytics/retention.server.ts'

/**
 * One analytics maintenance pass, as the cron and `npm run analytics:rollup` run it: roll up the
 * days that need it, then (when retention is on) delete the raw events it allows. Rolling up first
 * is what makes deleting safe. Passes never overlap: a second one answers null at once.
 */
export async function maintainAnalytics(
  db: DB,
  options: { detection: ChangeDetection; retentionDays?: number; retentionBudgetMs?: number; now?: Date },
): Promise<{ rolledUp: string[]; retention: RetentionResult | null } | null> {
  return withRollupLock(db, async () => {
    const rolledUp = await rollUpChangedDays(db, options.detection, options.now)
    const retention =
      options.retentionDays === undefined
        ? null
        : await deleteExpiredRawEvents(db, {
            retentionDays: options.retentionDays,
            now: options.now,
            budgetMs: options.retentionBudgetMs,
          })
    return { rolledUp, retention }
  })
}
