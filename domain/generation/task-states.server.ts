import { sql } from 'kysely'
import type { DB, Tx } from '#platform/db.server.ts'
import { compiledOnce } from '#platform/prepared-queries.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { refundHdDifference, refundVersions } from '#domain/credits/credits.server.ts'
import { hdDifferenceOwed } from './hd-difference.ts'
import type { DeliveredVersion } from './task-version.ts'
import type { RefundReason } from '#domain/credits/refund-reasons.ts'
import { returnFreeFix } from './free-fixes.server.ts'
import { MEDIA_RETENTION_DAYS } from './task-view.ts'
import { taskColumnNames, taskKeys, madeKeysColumn } from '#domain/generation/user-tasks.server.ts'

/**
 * The state changes the worker makes to generation tasks. A task moves
 * queued -> processing -> completed | failed; a failed task is refunded in the transaction that
 * marks it failed, and only the first such transition can happen.
 */

/**
 * Starts an attempt: processing, a fresh heartbeat, progress 0 (kept while a remote operation is
 * resumed). Undefined when the task is gone or finished. Compiled once: it is what the worker does
 * first with every job, as soon as it has it.
 */
export const startTaskAttempt = compiledOnce((db: DB, taskId: string, provider: string) =>
  db
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
    .returning(taskColumnNames),
)

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

/**
 * Completes a processing task with the versions it received (a single key: one version 0), in one
 * transaction: the versions' rows, the first as the favourite (its key is the result), and a refund
 * line for each version asked for that did not come, with `missingReason` as the reason (by default,
 * the provider made fewer). False when the task is no longer processing (recovery failed and
 * refunded it meanwhile).
 */
export async function completeTask(
  db: DB,
  taskId: string,
  delivered: string | DeliveredVersion[],
  {
    missingReason = 'not_delivered',
    hdLongEdge,
  }: {
    /** Why the versions not delivered are missing (each is refunded). */
    missingReason?: RefundReason
    /**
     * The long edge an HD version must have when its own provider's is unknown; a smaller one is
     * refunded HD's difference (decision 0035).
     */
    hdLongEdge?: number
  } = {},
) {
  const versions = typeof delivered === 'string' ? [{ index: 0, key: delivered }] : delivered
  if (versions.length === 0) throw new Error(`completeTask(${taskId}) needs at least one version`)
  const favourite = versions.reduce((first, version) => (version.index < first.index ? version : first))
  return db.transaction().execute(async (tx) => {
    const task = await tx
      .updateTable('generation_tasks')
      .set({
        status: 'completed',
        progress: 100,
        result_key: favourite.key,
        favourite_index: favourite.index,
        finished_at: sql`now()`,
        expires_at: retentionEnd,
        heartbeat_at: null,
      })
      .where('id', '=', taskId)
      .where('status', '=', 'processing')
      .returning(['user_id', 'kind', 'credit_cost', 'variants', 'provider', 'params'])
      .executeTakeFirst()
    if (!task) return false
    await tx
      .insertInto('task_versions')
      .values(
        versions.map((version) => ({
          task_id: taskId,
          version_index: version.index,
          key: version.key,
          width: version.width ?? null,
          height: version.height ?? null,
          provider: version.provider ?? task.provider,
          model: version.model ?? null,
          title: version.title?.text ?? null,
          title_style: version.title?.style ?? null,
          title_font: version.title?.font ?? null,
          titled_key: version.title?.key ?? null,
        })),
      )
      .onConflict((conflict) =>
        conflict.columns(['task_id', 'version_index']).doUpdateSet((eb) => ({
          key: eb.ref('excluded.key'),
          width: eb.ref('excluded.width'),
          height: eb.ref('excluded.height'),
          provider: eb.ref('excluded.provider'),
          model: eb.ref('excluded.model'),
          title: eb.ref('excluded.title'),
          title_style: eb.ref('excluded.title_style'),
          title_font: eb.ref('excluded.title_font'),
          titled_key: eb.ref('excluded.titled_key'),
        })),
      )
      .execute()
    const delivered = new Set(versions.map((version) => version.index))
    const missing = versionIndexes(task.variants).filter((index) => !delivered.has(index))
    await refundVersions(tx, {
      userId: task.user_id,
      taskId,
      kind: task.kind,
      variants: task.variants,
      unitCost: unitCost(task),
      versionIndexes: missing,
      reason: missingReason,
    })
    const hd = hdDifferenceOwed(task.params, versions, hdLongEdge)
    if (hd) await refundHdDifference(tx, { userId: task.user_id, taskId, variants: task.variants, ...hd })
    return true
  })
}

/** What one version of a task cost: its price is the image cost times the versions. */
const unitCost = (task: { credit_cost: number; variants: number }) => Math.floor(task.credit_cost / task.variants)
const versionIndexes = (variants: number) => Array.from({ length: variants }, (_, index) => index)

/**
 * Whether a stored result no task will ever use may go: the task was deleted, or it ended without
 * it (failed and refunded, or completed by another attempt with other files). A task still queued
 * or processing will look for it on its next attempt.
 */
export async function isResultOrphaned(db: DB, taskId: string, key: string) {
  const row = await db
    .selectFrom('generation_tasks as t')
    .select([
      't.status',
      (eb) =>
        eb
          .exists(eb.selectFrom('task_versions as v').whereRef('v.task_id', '=', 't.id').where('v.key', '=', key))
          .as('kept'),
    ])
    .where('t.id', '=', taskId)
    .executeTakeFirst()
  if (!row) return true
  return row.status === 'failed' || (row.status === 'completed' && !row.kept)
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
 * Marks an unfinished task failed and refunds each of its versions (one ledger line each, with
 * `refund` worded into it: refund-reasons.ts; `reason` is shown on the task), in the caller's
 * transaction. The status guard locks the row, so of two concurrent calls only one refunds; the
 * ledger's credit_transactions_refund_once index (task, version) would refuse a second refund
 * anyway. Answers whether this call failed it.
 */
export async function failTask(tx: Tx, taskId: string, reason: string, refund: RefundReason = 'internal') {
  const task = await tx
    .updateTable('generation_tasks')
    .set({ status: 'failed', error: reason, finished_at: sql`now()`, expires_at: retentionEnd, heartbeat_at: null })
    .where('id', '=', taskId)
    .where('status', 'in', ['queued', 'processing'])
    .returning(['user_id', 'kind', 'credit_cost', 'variants', 'family_root_id', 'params'])
    .executeTakeFirst()
  if (!task) return false
  await returnFreeFix(tx, task)
  await refundVersions(tx, {
    userId: task.user_id,
    taskId,
    kind: task.kind,
    variants: task.variants,
    unitCost: unitCost(task),
    versionIndexes: versionIndexes(task.variants),
    reason: refund,
  })
  return true
}

/** Removes tasks past their expiry with their files, in batches. Answers how many went. */
export async function expireTasks(db: DB, now = new Date(), batchSize = 200) {
  let removed = 0
  for (;;) {
    const batch = await db
      .selectFrom('generation_tasks')
      .select(['id', 'input_keys', 'result_key', madeKeysColumn])
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
