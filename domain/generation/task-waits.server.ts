import type { DB, Tx } from '#platform/db.server.ts'
import { enqueueJob } from '#platform/jobs.server.ts'
import { failTask } from '#domain/generation/task-states.server.ts'

/**
 * A generation job that must wait (no room at the provider, a 429, a provider that cannot be
 * reached, a Veo operation still rendering) does not sleep in its worker slot: it hands the task to
 * a new run of the same job at a later run_at and ends. The new job keeps the task id as its key
 * (graphile-worker retires the running job's key, so recovery keeps finding the task's job) and the
 * attempts the task still has, so waiting uses up none.
 */

export type GenerationJobName = 'generate_image' | 'generate_video' | 'upscale_image'

export interface LaterRun {
  taskId: string
  jobName: GenerationJobName
  delayMs: number
  /** Attempts the task has left, the running one not counted as used. */
  attemptsLeft: number
}

export const WAITED_TOO_LONG_REASON =
  'The generation service stayed too busy for too long. Your credits have been refunded.'

/**
 * Back in the queue for `delayMs`, counted against `maxWaitMs`; a task that would wait longer in
 * total fails and is refunded instead: as having stayed busy, or, given the provider's
 * `unreachable` message, as unreachable. Answers what happened.
 */
export async function waitForRoom(
  db: DB,
  run: LaterRun,
  maxWaitMs: number,
  unreachable?: string,
): Promise<'waiting' | 'failed'> {
  return db.transaction().execute(async (tx) => {
    const task = await tx
      .updateTable('generation_tasks')
      .set((eb) => ({ status: 'queued', heartbeat_at: null, waited_ms: eb('waited_ms', '+', Math.round(run.delayMs)) }))
      .where('id', '=', run.taskId)
      .where('status', '=', 'processing')
      .returning('waited_ms')
      .executeTakeFirst()
    if (!task) return 'failed'
    if (task.waited_ms > maxWaitMs) {
      if (unreachable === undefined) await failTask(tx, run.taskId, WAITED_TOO_LONG_REASON, 'busy')
      else await failTask(tx, run.taskId, unreachable, 'unreachable')
      return 'failed'
    }
    await enqueueLaterRun(tx, run)
    return 'waiting'
  })
}

/** The task stays processing (its progress visible) while its remote operation renders. */
export async function checkAgainLater(db: DB, run: LaterRun) {
  await db.transaction().execute(async (tx) => {
    await tx
      .updateTable('generation_tasks')
      .set({ heartbeat_at: null })
      .where('id', '=', run.taskId)
      .where('status', '=', 'processing')
      .execute()
    await enqueueLaterRun(tx, run)
  })
}

async function enqueueLaterRun(tx: Tx, run: LaterRun) {
  await enqueueJob(
    tx,
    run.jobName,
    { taskId: run.taskId },
    { jobKey: run.taskId, maxAttempts: Math.max(1, run.attemptsLeft), runAt: new Date(Date.now() + run.delayMs) },
  )
}

/** Written as soon as the provider names the operation: from then on, every run resumes it. */
export async function saveProviderOperation(db: DB, taskId: string, operation: string) {
  await db
    .updateTable('generation_tasks')
    .set({ provider_operation: operation })
    .where('id', '=', taskId)
    .where('provider_operation', 'is', null)
    .execute()
}

/** Counts a timed-out provider call of the task; answers how many there have been. */
export async function recordTimedOutCall(db: DB, taskId: string): Promise<number> {
  const row = await db
    .updateTable('generation_tasks')
    .set((eb) => ({ timed_out_calls: eb('timed_out_calls', '+', 1) }))
    .where('id', '=', taskId)
    .returning('timed_out_calls')
    .executeTakeFirst()
  return row?.timed_out_calls ?? 0
}
