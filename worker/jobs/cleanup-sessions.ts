import type { Task } from 'graphile-worker'
import { deleteExpiredSessions } from '#domain/sessions/session.server.ts'
import { getDb } from '#platform/db.server.ts'

/** Daily: removes expired sessions (and with them, nothing a user could still use). */
export const cleanupSessions: Task = async (_payload, helpers) => {
  const removed = await deleteExpiredSessions(getDb())
  helpers.logger.info(`removed ${removed} expired session(s)`)
}
