import { z } from 'zod'
import type { TaskKind } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { notFound } from '#domain/http-error.server.ts'

/**
 * "The user's own task, or 404", the one lookup behind every change a user makes to a task of
 * theirs (favourite, re-roll, fix, "Make it bigger", share, a pet from a task, delete, delete the
 * photo), with one id rule: an id that is no UUID, a missing task and another user's task are one
 * and the same 404, and a malformed id never reaches a query.
 */

const uuid = z.string().uuid()
/** Whether a value can be a task's id (a UUID): anything else is a task not found, never a query. */
export const isTaskId = (value: unknown): value is string => uuid.safeParse(value).success

export const TASK_NOT_FOUND = 'Task not found'

interface OwnTaskOptions {
  /** The kind the task must be: an image unless said otherwise; null for either. */
  kind?: TaskKind | null
  /** The 404's message. */
  message?: string
}

/** The user's own task (an image task unless `kind` says otherwise), or 404. */
export async function requireOwnTask(
  db: DB,
  userId: string,
  taskId: string,
  { kind = 'image', message = TASK_NOT_FOUND }: OwnTaskOptions = {},
) {
  const task = isTaskId(taskId) ? await findOwnTask(db, userId, taskId, kind) : undefined
  if (!task) throw notFound(message)
  return task
}

function findOwnTask(db: DB, userId: string, taskId: string, kind: TaskKind | null) {
  const own = db.selectFrom('generation_tasks').selectAll().where('id', '=', taskId).where('user_id', '=', userId)
  return (kind ? own.where('kind', '=', kind) : own).executeTakeFirst()
}
