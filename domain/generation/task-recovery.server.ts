import { sql } from 'kysely'
import type { DB, Tx } from '#platform/db.server.ts'
import { enqueueJob, isGenerationJob } from '#platform/jobs.server.ts'
import { failTask, requeueTask } from '#domain/generation/task-states.server.ts'

/**
 * graphile-worker only unlocks a dead worker's jobs after 4 hours. A generation task's job carries
 * the task id as its key and the running task beats its heartbeat_at, so a task whose job is still
 * locked but whose heartbeat went quiet for `stallMs` was left behind: its worker died, or lived
 * on after graphile-worker's own "job failed" write lost its connection (worker/outage-guard.ts).
 * It runs again, or, with no attempts left, fails and is refunded.
 *
 * graphile-worker unlocks jobs by worker (force_unlock_workers), and one worker id holds every job
 * of a lane in a process. A worker with another job whose task still beats is alive, so it is
 * never unlocked: that would hand its running jobs to a second attempt, and their providers
 * would be asked twice. The left-behind job is replaced instead by a new one with its key, which
 * graphile-worker's add_job makes of a locked job (the old one keeps no key and no attempts).
 */

interface StalledTask {
  id: string
  job_id: number | null
  task_identifier: string | null
  locked_by: string | null
  attempts: number | null
  max_attempts: number | null
  worker_alive: boolean
}

export const UNFINISHED_REASON = 'The generation was interrupted too many times. Your credits have been refunded.'
const NO_JOB_REASON = 'The generation could not be scheduled. Your credits have been refunded.'

export async function recoverStalledTasks(db: DB, stallMs: number) {
  const stale = sql`now() - make_interval(secs => ${stallMs / 1000})`
  const { rows } = await sql<StalledTask>`
    SELECT t.id, j.id AS job_id, j.task_identifier, j.locked_by, j.attempts, j.max_attempts,
      EXISTS (
        SELECT 1 FROM graphile_worker.jobs other
        JOIN generation_tasks beating ON other.key = beating.id::text
        WHERE other.locked_by = j.locked_by AND other.id <> j.id AND beating.heartbeat_at >= ${stale}
      ) AS worker_alive
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
    // The task is settled before its job runs again or goes: both commit together.
    await db.transaction().execute(async (tx) => {
      if (retry) await requeueTask(tx, task.id)
      else if (
        task.job_id === null
          ? await failTask(tx, task.id, NO_JOB_REASON, 'not_scheduled')
          : await failTask(tx, task.id, UNFINISHED_REASON, 'interrupted')
      )
        failed.push(task.id)
      if (task.locked_by && task.worker_alive) {
        // Failed: the old job, unlocked by graphile-worker after 4 hours, finds the task finished.
        if (retry) await replaceJob(tx, task)
        return
      }
      if (task.locked_by)
        await sql`SELECT graphile_worker.force_unlock_workers(${[task.locked_by]}::text[])`.execute(tx)
      if (task.job_id !== null && !retry)
        await sql`SELECT graphile_worker.complete_jobs(${[task.job_id]}::bigint[])`.execute(tx)
    })
    if (retry) requeued.push(task.id)
  }
  return { requeued, failed }
}

/** A new job for the task, of the left-behind one's kind, with the attempts it still had. */
async function replaceJob(tx: Tx, task: StalledTask) {
  // Only a generation job carries its task's id as its key (jobKinds in platform/jobs.server.ts).
  if (!isGenerationJob(task.task_identifier)) return
  await enqueueJob(
    tx,
    task.task_identifier,
    { taskId: task.id },
    { jobKey: task.id, maxAttempts: Math.max(1, (task.max_attempts ?? 1) - (task.attempts ?? 0)) },
  )
}
