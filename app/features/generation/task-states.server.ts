import { sql } from 'kysely'
import { z } from 'zod'
import type { GenerationTask, TaskKind } from '#platform/db-schema.ts'
import { MEDIA_RETENTION_DAYS } from './task-client.ts'
import type { TaskView } from './task-view.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { HttpError, notFound } from '#app/utils/http.server.ts'
import { enqueueJob } from '#platform/jobs.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { mediaUrl } from '#app/utils/media-url.ts'
import { getStorage } from '#platform/storage.server.ts'
import { grantCredits, spendCredits } from '#app/features/credits/credits.server.ts'
import { getSystemConfig, type SystemSettings } from '#app/features/credits/system-config.server.ts'

/**
 * Generation tasks (images and videos alike): the paid submission, the reads behind the task API,
 * the sidebar and the history, and the state changes the worker makes. A task moves
 * queued -> processing -> completed | failed; a failed task is refunded in the transaction that
 * marks it failed, and only the first such transition can happen.
 */

/** One try plus three retries with graphile-worker's exponential backoff (about 3 s, 7 s, 20 s). */
export const GENERATION_MAX_ATTEMPTS = 4

const jobFor = { image: 'generate_image', video: 'generate_video' } as const satisfies Record<TaskKind, string>
const kindNames: Record<TaskKind, string> = { image: 'an image', video: 'a video' }

export interface NewTask {
  /** Chosen by the caller, so uploads can be stored under the task before its row exists. */
  id: string
  userId: string
  kind: TaskKind
  source: 'generate' | 'template'
  params: Record<string, unknown>
  inputKeys: string[]
  provider: string
  /** The price, read from the system config inside the paying transaction. */
  cost: (settings: SystemSettings) => number
  /** The ledger line, e.g. 'Image generation'. */
  description: string
}

/**
 * One transaction: the task row, the debit with its 'spend' ledger line, and the job. Too few
 * credits: 402 with needPurchase; too many of the user's tasks queued or running: 429. Either way
 * nothing is written.
 */
export async function createPaidTask(db: DB, task: NewTask) {
  const created = await db.transaction().execute(async (tx) => {
    const cost = task.cost(await getSystemConfig(tx))
    await tx
      .insertInto('generation_tasks')
      .values({
        id: task.id,
        user_id: task.userId,
        kind: task.kind,
        source: task.source,
        params: JSON.stringify(task.params),
        input_keys: task.inputKeys,
        credit_cost: cost,
        provider: task.provider,
        result_key: null,
        error: null,
        started_at: null,
        finished_at: null,
        expires_at: null,
      })
      .execute()
    const paid = await spendCredits(tx, { userId: task.userId, cost, description: task.description, taskId: task.id })
    if (!paid) {
      throw new HttpError(402, `You need at least ${cost} credits to generate ${kindNames[task.kind]}`, {
        extra: { needPurchase: true },
      })
    }
    await refuseBeyondActiveLimit(tx, task.userId, getEnv().MAX_ACTIVE_TASKS_PER_USER)
    await enqueueJob(
      tx,
      jobFor[task.kind],
      { taskId: task.id },
      { maxAttempts: GENERATION_MAX_ATTEMPTS, jobKey: task.id },
    )
    const { credits } = await tx
      .selectFrom('users')
      .select('credits')
      .where('id', '=', task.userId)
      .executeTakeFirstOrThrow()
    return { taskId: task.id, cost, credits }
  })
  getMetrics().tasksSubmitted.inc({ kind: task.kind })
  return created
}

/**
 * Fairness: one user's burst cannot fill every worker's lanes. Called after the debit, whose UPDATE
 * locks the user's row: two submissions of the same user count one after the other, the new task
 * included. Throwing rolls the debit back.
 */
async function refuseBeyondActiveLimit(tx: Tx, userId: string, limit: number) {
  const { active } = await tx
    .selectFrom('generation_tasks')
    .select((eb) => eb.fn.countAll<number>().as('active'))
    .where('user_id', '=', userId)
    .where('status', 'in', ['queued', 'processing'])
    .executeTakeFirstOrThrow()
  if (Number(active) > limit) {
    throw new HttpError(
      429,
      `You already have ${limit} generations in progress. Please wait until one of them finishes.`,
    )
  }
}

// ---------------------------------------------------------------------------------------------
// Reads

const uuid = z.string().uuid()
export const isTaskId = (value: unknown): value is string => uuid.safeParse(value).success

const descriptions: Record<TaskKind, Record<GenerationTask['source'], string>> = {
  image: { generate: 'Generate pet portrait', template: 'Generate from template' },
  video: { generate: 'Generate pet video', template: 'Generate pet video' },
}

/** The columns of a task plus where it stands in the shared queue. */
function selectTasksWithQueue(db: DB) {
  return db
    .selectFrom('generation_tasks as t')
    .selectAll('t')
    .select([
      sql<number>`CASE WHEN t.status = 'queued' THEN (
        SELECT count(*)::int FROM generation_tasks q
        WHERE q.status = 'queued' AND (q.created_at, q.id) <= (t.created_at, t.id)
      ) ELSE 0 END`.as('queue_position'),
      sql<number>`(SELECT count(*)::int FROM generation_tasks WHERE status = 'queued')`.as('total_in_queue'),
      sql<number>`(SELECT count(*)::int FROM generation_tasks WHERE status = 'processing')`.as('running_tasks'),
    ])
}

type TaskWithQueue = GenerationTask & { queue_position: number; total_in_queue: number; running_tasks: number }

/** A task as the task API and the sidebar answer it (spec section 3, Task). */
export function toTaskView(task: TaskWithQueue, maxConcurrentTasks: number): TaskView {
  const url = mediaUrl(task.result_key)
  return {
    id: task.id,
    type: task.kind,
    source: task.source,
    status: task.status,
    progress: task.progress,
    queuePosition: task.queue_position,
    totalInQueue: task.total_in_queue,
    runningTasks: task.running_tasks,
    maxConcurrentTasks,
    result: url ? (task.kind === 'image' ? { imageUrl: url } : { videoUrl: url }) : null,
    error: task.error,
    description: descriptions[task.kind][task.source],
    createdAt: task.created_at.toISOString(),
    submittedAt: task.created_at.toISOString(),
  }
}

/** The user's own task of that kind, or null (someone else's task is as unknown as a missing one). */
export async function findTaskView(db: DB, userId: string, taskId: string, kind: TaskKind, maxConcurrent: number) {
  if (!isTaskId(taskId)) return null
  const task = await selectTasksWithQueue(db)
    .where('t.id', '=', taskId)
    .where('t.user_id', '=', userId)
    .where('t.kind', '=', kind)
    .executeTakeFirst()
  return task ? toTaskView(task, maxConcurrent) : null
}

/**
 * Tasks of every kind from the last 24 hours, newest first: a superset of "today" in any time zone;
 * the sidebar keeps those of the browser's own day.
 */
export async function listRecentTaskViews(db: DB, userId: string, maxConcurrent: number) {
  const tasks = await selectTasksWithQueue(db)
    .where('t.user_id', '=', userId)
    .where('t.created_at', '>', sql<Date>`now() - interval '24 hours'`)
    .orderBy('t.created_at', 'desc')
    .limit(100)
    .execute()
  return tasks.map((task) => toTaskView(task, maxConcurrent))
}

export const historyQuerySchema = z.object({
  page: z.coerce.number().int().min(1).catch(1),
  limit: z.coerce.number().int().min(1).max(50).catch(10),
})

/** One page of the user's completed results of a kind, newest first. */
export async function listHistory(db: DB, userId: string, kind: TaskKind, query: z.infer<typeof historyQuerySchema>) {
  const completed = db
    .selectFrom('generation_tasks')
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('status', '=', 'completed')
  const [{ total }, rows] = await Promise.all([
    completed.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    completed
      .select(['id', 'source', 'result_key', 'created_at', 'expires_at'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .offset((query.page - 1) * query.limit)
      .execute(),
  ])
  const items = rows.map((row) => ({
    id: row.id,
    source: row.source,
    url: mediaUrl(row.result_key),
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at?.toISOString() ?? null,
  }))
  const pagination = { total, page: query.page, limit: query.limit, pages: Math.ceil(total / query.limit) }
  return { items, pagination }
}

export type HistoryItem = Awaited<ReturnType<typeof listHistory>>['items'][number]

const taskKeys = (task: Pick<GenerationTask, 'input_keys' | 'result_key'>) =>
  task.result_key ? [...task.input_keys, task.result_key] : task.input_keys

/** Every stored file of a user's tasks (all under the tasks' own prefixes, shared with nobody). */
export async function userTaskKeys(db: DB | Tx, userId: string) {
  const tasks = await db
    .selectFrom('generation_tasks')
    .select(['input_keys', 'result_key'])
    .where('user_id', '=', userId)
    .execute()
  return tasks.flatMap(taskKeys)
}

/**
 * Deletes the user's finished task of that kind with its stored files. Files go first, so a failure
 * leaves the row (and a retry finds them) rather than files nobody can reach.
 */
export async function deleteFinishedTask(db: DB, userId: string, taskId: string, kind: TaskKind) {
  const what = kind === 'image' ? 'Image' : 'Video'
  const task = isTaskId(taskId)
    ? await db
        .selectFrom('generation_tasks')
        .select(['id', 'status', 'input_keys', 'result_key'])
        .where('id', '=', taskId)
        .where('user_id', '=', userId)
        .where('kind', '=', kind)
        .executeTakeFirst()
    : undefined
  if (!task) throw notFound(`${what} not found`)
  if (task.status === 'queued' || task.status === 'processing') {
    throw new HttpError(409, `This ${kind} is still being generated`)
  }
  await getStorage().deleteMany(taskKeys(task))
  await db.deleteFrom('generation_tasks').where('id', '=', task.id).execute()
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

// ---------------------------------------------------------------------------------------------
// State changes made by the worker

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
export async function completeTask(db: DB, taskId: string, resultKey: string) {
  const updated = await db
    .updateTable('generation_tasks')
    .set({
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

export async function findResultKey(db: DB, taskId: string) {
  const row = await db.selectFrom('generation_tasks').select('result_key').where('id', '=', taskId).executeTakeFirst()
  return row?.result_key ?? null
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
