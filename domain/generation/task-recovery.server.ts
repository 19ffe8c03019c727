import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { failTask, requeueTask } from '#domain/generation/task-states.server.ts'

/**
 * graphile-worker only unlocks a dead worker's jobs after 4 hours. A generation task's job carries
 * the task id as its key and the running task beats its heartbeat_at, so a task whose job is still
 * locked but whose heartbeat went quiet for `stallMs` belongs to a worker that died: its job is
 * unlocked to run again, or, with no attempts left, the task fails and is refunded.
 */

interface StalledTask {
  id: string
  job_id: number | null
  locked_by: string | null
  attempts: number | null
  max_attempts: number | null
}

export const UNFINISHED_REASON = 'The generation was interrupted too many times. Your credits have been refunded.'
const NO_JOB_REASON = 'The generation could not be scheduled. Your credits have been refunded.'

export async function recoverStalledTasks(db: DB, stallMs: number) {
  const stale = sql`now() - make_interval(secs => ${stallMs / 1000})`
  const { rows } = await sql<StalledTask>`
    SELECT t.id, j.id AS job_id, j.locked_by, j.attempts, j.max_attempts
    FROM generation_tasks t
    LEFT JOIN graphile_worker.jobs j ON j.key = t.id::text
    WHERE t.status IN ('queued', 'processing')
      AND (
        -- a dead worker: the job is still locked, the task silent
        (j.locked_at < ${stale} AND coalesce(t.heartbeat_at, j.locked_at) < ${stale})
        -- no job left to run it: gone, or out of attempts without the task being failed
        OR (j.id IS NULL AND t.created_at < ${stale})
        OR (j.locked_at IS NULL AND j.attempts >= j.max_attempts)
      )
  `.execute(db)

  const requeued: string[] = []
  const failed: string[] = []
  for (const task of rows) {
    const retry = task.attempts !== null && task.max_attempts !== null && task.attempts < task.max_attempts
    await db.transaction().execute(async (tx) => {
      if (retry) await requeueTask(tx, task.id)
      else if (await failTask(tx, task.id, task.job_id === null ? NO_JOB_REASON : UNFINISHED_REASON))
        failed.push(task.id)
      // The task is settled before its job runs again or goes: both commit together.
      if (task.locked_by)
        await sql`SELECT graphile_worker.force_unlock_workers(${[task.locked_by]}::text[])`.execute(tx)
      if (task.job_id !== null && !retry)
        await sql`SELECT graphile_worker.complete_jobs(${[task.job_id]}::bigint[])`.execute(tx)
    })
    if (retry) requeued.push(task.id)
  }
  return { requeued, failed }
}
