import type { Task } from 'graphile-worker'
import { maintainAnalytics } from '#domain/analytics/maintenance.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getWorkerEnv } from '#worker/env.ts'

// A pass deletes for at most this long; a first pass after turning retention on continues in the next ones.
const RETENTION_BUDGET_MS = 20_000

/** Twice an hour: rolls up the analytics days that changed, then applies ANALYTICS_RAW_RETENTION_DAYS. */
export const rollupAnalytics: Task = async (_payload, helpers) => {
  const result = await maintainAnalytics(getDb(), {
    detection: 'new-events',
    retentionDays: getWorkerEnv().ANALYTICS_RAW_RETENTION_DAYS,
    retentionBudgetMs: RETENTION_BUDGET_MS,
  })
  if (result === null) return helpers.logger.info('another analytics rollup is running')
  if (result.rolledUp.length > 0) helpers.logger.info(`rolled up ${result.rolledUp.length} analytics day(s)`)
  if (result.retention && result.retention.deleted > 0) {
    const { deleted, keptSince, done } = result.retention
    helpers.logger.info(
      `deleted ${deleted} raw analytics event(s) before ${keptSince}${done ? '' : ' (more next time)'}`,
    )
  }
}
