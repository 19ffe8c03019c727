import { sql } from 'kysely'
import type { DB, Tx } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { grantCredits } from '#domain/credits/credits.server.ts'
import { MEDIA_RETENTION_DAYS } from './task-view.ts'
import { taskKeys } from '#domain/generation/user-tasks.server.ts'

/**
 * The state changes the worker makes to generation tasks. A task moves
 * queued -> processing -> completed | failed; a failed task is refunded in the transaction that
 * marks it failed, and only the first such transition can happen.
 */

/**
 * Starts an attempt: processing, a fresh heartbeat, progress 0 (kept while a remote operation is
 * resumed). Null when the task is gone or finished.
 */
export async function startTaskAttempt(db: DB, taskId: string, provider: string) {
  return db
    .updateTable('generation_tasks')
    .set((eb) => ({
      status: 'processing',
      attempts: eb('attempts', '+', 1),
      started_at: sql`coalesce(started_at, now())`,
      heartbeat_at: sql`now()`,
      progress: sql`CASE WHEN provider_operation IS NULL THEN 0 ELSE progress END`,
      error: null,
      provider,
    }))
    .where('id', '=', taskId)
    .where('status', 'in', ['queued', 'processing'])
    .returningAll()
    .executeTakeFirst()
}

/** Progress while running (never 100: that means done), which also counts as a heartbeat. */
export async function recordProgress(db: DB, taskId: string, percent: number) {
  const progress = Math.max(0, Math.min(99, Math.round(percent)))
  await db
    .updateTable('generation_tasks')
    .set({ progress: sql`greatest(progress, ${progress})`, heartbeat_at: sql`now()` })
    .where('id', '=', taskId)
    .where('status', '=', 'processing')
    .execute()
}

export async function recordHeartbeat(db: DB, taskId: string) {
  await db
    .updateTable('generation_tasks')
    .set({ heartbeat_at: sql`now()` })
    .where('id', '=', taskId)
    .where('status', '=', 'processing')
    .execute()
}

const retentionEnd = sql<Date>`now() + make_interval(days => ${MEDIA_RETENTION_DAYS})`

/** False when the task is no longer processing (recovery failed and refunded it meanwhile). */
/** `madeBy`: the provider and model that made the result, when the attempt asked one (not a stored answer). */
export async function completeTask(
  db: DB,
  taskId: string,
  resultKey: string,
  madeBy?: { provider: string; model: string | null },
) {
  const updated = await db
    .updateTable('generation_tasks')
    .set({
      ...(madeBy ? { provider: madeBy.provider, provider_model: madeBy.model } : {}),
      status: 'completed',
      progress: 100,
      result_key: resultKey,
      finished_at: sql`now()`,
      expires_at: retentionEnd,
      heartbeat_at: null,
    })
    .where('id', '=', taskId)
    .where('status', '=', 'processing')
    .executeTakeFirst()
  return updated.numUpdatedRows > 0n
}

/**
 * Whether a stored result no task will ever use may go: the task was deleted, or it ended without
 * it (failed and refunded, or completed by another attempt with another file). A task still queued
 * or processing will look for it on its next attempt.
 */
export async function isResultOrphaned(db: DB, taskId: string, key: string) {
  const row = await db
    .selectFrom('generation_tasks')
    .select(['status', 'result_key'])
    .where('id', '=', taskId)
    .executeTakeFirst()
  if (!row) return true
  return row.status === 'failed' || (row.status === 'completed' && row.result_key !== key)
}

/** Back in the queue until graphile-worker's backoff runs the job again. */
export async function requeueTask(db: DB | Tx, taskId: string) {
  await db
    .updateTable('generation_tasks')
    .set({ status: 'queued', progress: 0, heartbeat_at: null })
    .where('id', '=', taskId)
    .where('status', '=', 'processing')
    .execute()
}

/**
 * Marks an unfinished task failed and refunds its cost, in the caller's transaction. The status
 * guard locks the row, so of two concurrent calls only one refunds; the ledger's
 * credit_transactions_refund_once index would refuse a second refund anyway.
 * Answers whether this call failed it.
 */
export async function failTask(tx: Tx, taskId: string, reason: string) {
  const task = await tx
    .updateTable('generation_tasks')
    .set({ status: 'failed', error: reason, finished_at: sql`now()`, expires_at: retentionEnd, heartbeat_at: null })
    .where('id', '=', taskId)
    .where('status', 'in', ['queued', 'processing'])
    .returning(['user_id', 'kind', 'credit_cost'])
    .executeTakeFirst()
  if (!task) return false
  if (task.credit_cost > 0) {
    await grantCredits(tx, {
      userId: task.user_id,
      type: 'earn',
      amount: task.credit_cost,
      description: `Refund: ${task.kind} generation failed`,
      taskId,
    })
  }
  return true
}

/** Removes tasks past their expiry with their files, in batches. Answers how many went. */
export async function expireTasks(db: DB, now = new Date(), batchSize = 200) {
  let removed = 0
  for (;;) {
    const batch = await db
      .selectFrom('generation_tasks')
      .select(['id', 'input_keys', 'result_key'])
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(batchSize)
      .execute()
    if (batch.length === 0) return removed
    await getStorage().deleteMany(batch.flatMap(taskKeys))
    await db
      .deleteFrom('generation_tasks')
      .where(
        'id',
        'in',
        batch.map((task) => task.id),
      )
      .execute()
    removed += batch.length
    if (batch.length < batchSize) return removed
  }
}
