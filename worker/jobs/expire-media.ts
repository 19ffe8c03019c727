import type { Task } from 'graphile-worker'
import { expireTasks } from '#domain/generation/task-states.server.ts'
import { expireExports } from '#domain/user-data/data-exports.server.ts'
import { getDb } from '#platform/db.server.ts'

/**
 * Hourly: removes generated media past its retention (MEDIA_RETENTION_DAYS) and data exports past
 * their 24 hours, files and rows.
 */
export const expireMedia: Task = async (_payload, helpers) => {
  const removed = await expireTasks(getDb())
  if (removed > 0) helpers.logger.info(`removed ${removed} expired task(s) and their files`)
  const exports = await expireExports(getDb())
  if (exports > 0) helpers.logger.info(`removed ${exports} expired data export(s)`)
}
