import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import {
  selectRecentUserTasks,
  selectTasksWithQueue,
  selectUserTask,
  toTaskView,
  type TaskWithQueue,
} from '#domain/generation/user-tasks.server.ts'
import type { TaskView } from '#domain/generation/task-view.ts'

/** A task's view as the live stream sends it, with the number of the change it shows (its event id). */
export interface TaskUpdate {
  seq: number
  view: TaskView
}

/** Transactions that commit out of order can hand out numbers out of order: a replay looks back this far too. */
const REPLAY_OVERLAP = sql`interval '1 minute'`

const toUpdate = (row: TaskWithQueue): TaskUpdate => ({ seq: row.update_seq, view: toTaskView(row) })

/** The user's own task as it is now, or null (gone, or someone else's). */
export async function readTaskUpdate(db: DB, userId: string, taskId: string) {
  const row = await selectUserTask(db, userId, taskId)
  return row ? toUpdate(row) : null
}

/**
 * What a (re)connecting stream must send, oldest change first: the user's tasks changed after
 * `lastSeq` (none when the browser has seen nothing), every unfinished one, and any changed in the
 * last minute. Limited to the recent tasks the sidebar lists.
 */
export async function readTaskUpdatesSince(db: DB, userId: string, lastSeq: number | null) {
  const rows = await selectRecentUserTasks(db, userId)
    .where((eb) =>
      eb.or([
        ...(lastSeq === null ? [] : [eb('t.update_seq', '>', lastSeq)]),
        eb('t.status', 'in', ['queued', 'processing']),
        sql<boolean>`t.updated_at > now() - ${REPLAY_OVERLAP}`,
      ]),
    )
    .orderBy('t.update_seq')
    .execute()
  return rows.map(toUpdate)
}

/** The queued tasks of these users, with their places in the queue as they are now. */
export async function readQueuedTaskUpdates(db: DB, userIds: string[]) {
  if (userIds.length === 0) return []
  const rows = await selectTasksWithQueue(db)
    .where('t.user_id', '=', sql<string>`any(${userIds}::uuid[])`)
    .where('t.status', '=', 'queued')
    .execute()
  return rows.map((row) => ({ userId: row.user_id, update: toUpdate(row) }))
}
