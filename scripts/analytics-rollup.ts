// `npm run analytics:rollup`: rolls up every past analytics day whose raw events have no rollup or
// changed since (it compares every day's fingerprint: run it after an import, a restore or late
// events), then applies ANALYTICS_RAW_RETENTION_DAYS to the end, without the cron's time budget.
import { maintainAnalytics } from '#domain/analytics/maintenance.server.ts'
import { closeDb, getDb } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { exitOnStartupError } from '#platform/startup.server.ts'

try {
  const started = performance.now()
  const result = await maintainAnalytics(getDb(), {
    detection: 'fingerprints',
    retentionDays: getEnv().ANALYTICS_RAW_RETENTION_DAYS,
  })
  await closeDb()
  if (result === null) {
    console.error('[analytics] another rollup is running (the worker cron?); try again when it is done')
    process.exit(1)
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  console.log(`[analytics] rolled up ${result.rolledUp.length} day(s) in ${seconds} s`)
  if (result.retention?.keptSince) {
    console.log(`[analytics] raw events kept since ${result.retention.keptSince}; deleted ${result.retention.deleted}`)
  }
} catch (error) {
  exitOnStartupError(error)
}
