import { type RawBuilder, sql } from 'kysely'
import { z } from 'zod'
import type { GenerationTask, GenerationTasksTable, TaskKind } from '#platform/db-schema.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import { compiledOnce } from '#platform/prepared-queries.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { printReadiness } from '#domain/media/print-readiness.ts'
import { mediaUrl } from '#domain/media/media-url.ts'
import { previewKeysOf } from '#domain/media/previews.server.ts'
import type { TaskImage, TaskView } from '#domain/generation/task-view.ts'
import type { TaskVersion } from '#domain/generation/task-version.ts'
import { UPSCALE_FALLBACK } from '#domain/generation/upscale-params.ts'
import { isTaskId, requireOwnTask } from './own-task.server.ts'
import { imageTaskParamsSchema } from './image-task-params.ts'
import { petLabel } from './portrait-pets.ts'

/**
 * What routes do with a user's generation tasks: the reads behind the task API, the sidebar and
 * the history, and deleting a finished one.
 */

const descriptions: Record<TaskKind, Record<GenerationTask['source'], string>> = {
  image: { generate: 'Generate pet portrait', template: 'Generate from template', upscale: 'Make it bigger' },
  video: { generate: 'Generate pet video', template: 'Generate pet video', upscale: 'Generate pet video' },
}

/** Every column of a task, by name (a prepared statement names its columns: compiledOnce). */
export const taskColumnNames = Object.keys({
  id: true,
  user_id: true,
  kind: true,
  source: true,
  status: true,
  progress: true,
  params: true,
  input_keys: true,
  result_key: true,
  error: true,
  credit_cost: true,
  provider: true,
  attempts: true,
  created_at: true,
  started_at: true,
  finished_at: true,
  expires_at: true,
  heartbeat_at: true,
  waited_ms: true,
  provider_operation: true,
  timed_out_calls: true,
  update_seq: true,
  updated_at: true,
  end_email_queued_at: true,
  parent_task_id: true,
  family_root_id: true,
  variants: true,
  favourite_index: true,
} satisfies Record<keyof GenerationTasksTable, true>) as Array<keyof GenerationTasksTable>

/**
 * The columns a task's view is made of (toTaskView), and the owner and change number a live update
 * carries: a status poll reads many times a second, and each column more is more to send and parse.
 */
const viewColumnNames = [
  'id',
  'user_id',
  'kind',
  'source',
  'status',
  'progress',
  'params',
  'result_key',
  'error',
  'created_at',
  'parent_task_id',
  'variants',
  'favourite_index',
  'update_seq',
] as const satisfies ReadonlyArray<keyof GenerationTasksTable>
const viewColumns = viewColumnNames.map((column) => `t.${column}` as const)

/** The columns of a task's view plus where it stands in the shared queue. */
export function selectTasksWithQueue(db: DB) {
  return db
    .selectFrom('generation_tasks as t')
    .select(viewColumns)
    .select([
      sql<number>`CASE WHEN t.status = 'queued' THEN (
        SELECT count(*)::int FROM generation_tasks q
        WHERE q.status = 'queued' AND (q.created_at, q.id) <= (t.created_at, t.id)
      ) ELSE 0 END`.as('queue_position'),
      sql<number>`(SELECT count(*)::int FROM generation_tasks WHERE status = 'queued')`.as('total_in_queue'),
      sql<number>`(SELECT count(*)::int FROM generation_tasks WHERE status = 'processing')`.as('running_tasks'),
      taskVersionsColumn(sql.ref('t.id')),
      subjectColumn(sql.ref('t.params')),
      // Refunds are written with the state change they go with: the live update that announces it carries them.
      sql<string[]>`ARRAY(
        SELECT r.description FROM credit_transactions r WHERE r.task_id = t.id AND r.type = 'earn'
        ORDER BY r.version_index, r.id
      )`.as('refunds'),
    ])
}

/**
 * What a task's downloads are named after: the saved pet's name (several pets' joined), else the template's, else null
 * (the file is then named after the task id). The ids in `params` are compared as uuids, so that each
 * is found through its table's primary key rather than by reading every pet and template.
 */
const subjectColumn = (params: ReturnType<typeof sql.ref>) =>
  sql<string | null>`coalesce(
    (SELECT p.name FROM pets p WHERE p.id = ${uuidOrNull(sql`${params}->>'petId'`)}),
    (SELECT string_agg(pet->>'name', ' & ') FROM jsonb_array_elements(${params}->'pets') pet WHERE pet ? 'name'),
    (SELECT tp.name FROM templates tp WHERE tp.id = ${uuidOrNull(sql`${params}->>'templateId'`)})
  )`.as('subject')

/** The text as a uuid when it is one in uuid's own spelling (what `id::text` gives), else null: never a cast error. */
const uuidOrNull = (text: RawBuilder<string | null>) =>
  sql`CASE WHEN ${text} ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN (${text})::uuid END`

/** The task's versions, lowest index first, as one JSON column: each as completeTask kept it. */
const taskVersionsColumn = (taskId: ReturnType<typeof sql.ref>) =>
  sql<TaskVersion[]>`coalesce((
    SELECT json_agg(json_build_object('index', v.version_index, 'key', v.key, 'width', v.width, 'height', v.height,
                                      'provider', v.provider, 'model', v.model,
                                      'title', CASE WHEN v.titled_key IS NULL THEN NULL ELSE json_build_object(
                                        'text', v.title, 'style', v.title_style, 'font', v.title_font, 'key', v.titled_key
                                      ) END)
                    ORDER BY v.version_index)
    FROM task_versions v WHERE v.task_id = ${taskId}
  ), '[]'::json)`.as('versions')

/**
 * A task's versions as the task and history answers give them (`images`, index from 0); a titled
 * version's `url` is its titled copy (what the pages show), `plainUrl` the version without it.
 */
const versionViews = (versions: TaskVersion[]): TaskImage[] =>
  versions.map(({ index, key, width, height, provider, model, title }) => ({
    index,
    url: mediaUrl(title?.key ?? key) ?? '',
    ...(title
      ? { plainUrl: mediaUrl(key) ?? '', title: { text: title.text, style: title.style, font: title.font } }
      : {}),
    width,
    height,
    print: width && height ? printReadiness(width, height) : null,
    provider,
    model,
    ...(model === UPSCALE_FALLBACK ? { enlargedWithoutModel: true } : {}),
  }))

export type TaskWithQueue = Pick<GenerationTask, (typeof viewColumnNames)[number]> & {
  queue_position: number
  total_in_queue: number
  running_tasks: number
  versions: TaskVersion[]
  refunds: string[]
  subject: string | null
}

const userTask = (db: DB, userId: string, taskId: string) =>
  selectTasksWithQueue(db).where('t.id', '=', taskId).where('t.user_id', '=', userId)
// Status polls and live updates read one task at a time, many times a second: compiled once.
const userTaskOfAnyKind = compiledOnce(userTask)
const userTaskOfKind = compiledOnce((db: DB, userId: string, taskId: string, kind: TaskKind) =>
  userTask(db, userId, taskId).where('t.kind', '=', kind),
)

/** The user's own task (of that kind, when one is given) with its place in the queue, or undefined. */
export function selectUserTask(db: DB, userId: string, taskId: string, kind?: TaskKind) {
  return kind ? userTaskOfKind(db, userId, taskId, kind) : userTaskOfAnyKind(db, userId, taskId)
}

/**
 * The user's tasks of every kind from the last 24 hours (at most 100): a superset of "today" in any
 * time zone; the sidebar keeps those of the browser's own day, and a live stream replays from them.
 */
export const selectRecentUserTasks = (db: DB, userId: string) =>
  selectTasksWithQueue(db)
    .where('t.user_id', '=', userId)
    .where('t.created_at', '>', sql<Date>`now() - interval '24 hours'`)
    .limit(100)

/** A task as the task API, the sidebar and the live stream answer it (spec section 3, Task). */
export function toTaskView(task: TaskWithQueue): TaskView {
  const env = getEnv()
  const url = mediaUrl(task.result_key)
  const images = task.kind === 'image' ? versionViews(task.versions) : []
  const favourite = images.find((image) => image.index === task.favourite_index)
  return {
    id: task.id,
    type: task.kind,
    source: task.source,
    status: task.status,
    progress: task.progress,
    queuePosition: task.queue_position,
    totalInQueue: task.total_in_queue,
    runningTasks: task.running_tasks,
    // The worker's lanes for this kind of task (worker/lanes.ts).
    maxConcurrentTasks: task.kind === 'image' ? env.IMAGE_CONCURRENCY : env.VIDEO_CONCURRENCY,
    result: url
      ? task.kind === 'image'
        ? { imageUrl: favourite?.url ?? url, print: favourite?.print ?? null }
        : { videoUrl: url }
      : null,
    parentTaskId: task.parent_task_id,
    ...(task.kind === 'image' ? { images, variants: task.variants, favouriteIndex: task.favourite_index } : {}),
    ...(task.kind === 'image' ? petNames(task.params) : {}),
    error: task.error,
    refunds: task.refunds,
    subject: task.subject,
    description: descriptions[task.kind][task.source],
    createdAt: task.created_at.toISOString(),
    submittedAt: task.created_at.toISOString(),
  }
}

/** A portrait of several pets: their names in order; nothing for one pet. */
function petNames(params: unknown): { pets?: string[] } {
  // A portrait of one pet has no `pets`: nothing to parse (a status poll's commonest case).
  if (typeof params !== 'object' || params === null || !('pets' in params)) return {}
  const parsed = imageTaskParamsSchema.safeParse(params)
  const pets = parsed.success ? parsed.data.pets : undefined
  return pets ? { pets: pets.map(petLabel) } : {}
}

/** The user's own task of that kind, or null (someone else's task is as unknown as a missing one). */
export async function findTaskView(db: DB, userId: string, taskId: string, kind: TaskKind) {
  if (!isTaskId(taskId)) return null
  const task = await selectUserTask(db, userId, taskId, kind)
  return task ? toTaskView(task) : null
}

/** The user's recent tasks (selectRecentUserTasks), newest first. */
export async function listRecentTaskViews(db: DB, userId: string) {
  const tasks = await selectRecentUserTasks(db, userId).orderBy('t.created_at', 'desc').execute()
  return tasks.map(toTaskView)
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
      .select(['id', 'source', 'result_key', 'created_at', 'expires_at', 'favourite_index', 'params'])
      .select(taskVersionsColumn(sql.ref('generation_tasks.id')))
      .select(subjectColumn(sql.ref('generation_tasks.params')))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .offset((query.page - 1) * query.limit)
      .execute(),
  ])
  const items = rows.map((row) => ({
    id: row.id,
    source: row.source,
    url: favouriteUrl(row),
    images: versionViews(row.versions),
    favouriteIndex: row.favourite_index,
    subject: row.subject,
    ...petNames(row.params),
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at?.toISOString() ?? null,
  }))
  const pagination = { total, page: query.page, limit: query.limit, pages: Math.ceil(total / query.limit) }
  return { items, pagination }
}

/** The favourite's file as the pages show it: its titled copy when it has one. */
function favouriteUrl(row: { result_key: string | null; versions: TaskVersion[]; favourite_index: number }) {
  const favourite = row.versions.find((version) => version.index === row.favourite_index)
  return mediaUrl(favourite?.title?.key ?? row.result_key)
}

export type HistoryItem = Awaited<ReturnType<typeof listHistory>>['items'][number]

/**
 * Every file made from a task, for a query on `generation_tasks` (not aliased): each version, and
 * the copies its share pages serve (decision 0037), which go with the task.
 */
export const madeKeysColumn = sql<string[]>`ARRAY(
  SELECT k FROM task_versions v, unnest(ARRAY[v.key, v.titled_key]) AS k
  WHERE v.task_id = generation_tasks.id AND k IS NOT NULL
  UNION ALL
  SELECT k FROM share_pages s, unnest(ARRAY[s.image_key, s.card_key]) AS k WHERE s.task_id = generation_tasks.id
)`.as('made_keys')

/**
 * The stored files a task owns: its result, what was made from it (with their previews) and the uploads under its own prefix. A
 * re-roll or a likeness fix reuses its parent's photo without owning it, so deleting one never
 * takes the photo from the rest of its family (decision 0030).
 */
export function taskKeys(task: Pick<GenerationTask, 'id' | 'input_keys' | 'result_key'> & { made_keys: string[] }) {
  const owned = task.input_keys.filter((key) => key.startsWith(`tasks/${task.id}/`))
  const made = [...(task.result_key ? [task.result_key] : []), ...task.made_keys]
  return [...new Set([...owned, ...made, ...made.flatMap(previewKeysOf)])]
}

/** Every stored file of a user's tasks (all under the tasks' own prefixes, shared with nobody). */
export async function userTaskKeys(db: DB | Tx, userId: string) {
  const tasks = await db
    .selectFrom('generation_tasks')
    .select(['id', 'input_keys', 'result_key', madeKeysColumn])
    .where('user_id', '=', userId)
    .execute()
  return tasks.flatMap(taskKeys)
}

/**
 * Deletes the user's finished task of that kind with its stored files. Files go first, so a failure
 * leaves the row (and a retry finds them) rather than files nobody can reach.
 */
export async function deleteFinishedTask(db: DB, userId: string, taskId: string, kind: TaskKind) {
  const task = await requireOwnTask(db, userId, taskId, {
    kind,
    message: `${kind === 'image' ? 'Image' : 'Video'} not found`,
  })
  if (task.status === 'queued' || task.status === 'processing') {
    throw new HttpError(409, `This ${kind} is still being generated`)
  }
  const made = await db
    .selectFrom('generation_tasks')
    .select(madeKeysColumn)
    .where('id', '=', task.id)
    .executeTakeFirst()
  await getStorage().deleteMany(taskKeys({ ...task, made_keys: made?.made_keys ?? [] }))
  await db.deleteFrom('generation_tasks').where('id', '=', task.id).execute()
}
