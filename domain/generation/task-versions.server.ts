import { sql } from 'kysely'
import { z } from 'zod'
import type { DB, Tx } from '#platform/db.server.ts'
import { HttpError, badRequest } from '#domain/http-error.server.ts'
import { VARIANT_CHOICES } from '#domain/generation/image-prices.ts'
import { requireOwnTask } from '#domain/generation/own-task.server.ts'

/**
 * A run's versions after it ended: which one is the favourite (stands for the task in history and
 * downloads, and is its `result`), and the list of them for a download of all. Only the owner
 * reaches either; another user's task is as unknown as a missing one.
 */

const MOST_VERSIONS = Math.max(...VARIANT_CHOICES)

/** The favourite's index as the API and the pages send it: a whole number from 0. */
export const favouriteSchema = z.object({
  index: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value),
    z
      .number({
        required_error: 'index is required (0 for the first version)',
        invalid_type_error: 'index must be a version number (0 for the first)',
      })
      .int('index must be a whole number')
      .min(0, 'index must be 0 or more')
      .max(MOST_VERSIONS - 1, `index must be at most ${MOST_VERSIONS - 1} (a run has up to ${MOST_VERSIONS} versions)`),
  ),
})

/**
 * Makes version `index` the task's favourite: 404 for a task that is not the user's, 409 for one
 * not completed, 400 for a version it does not have. The result key follows in the same UPDATE, so
 * the live stream announces the change (its trigger watches result_key).
 */
export async function chooseFavourite(db: DB, userId: string, taskId: string, index: number) {
  const task = await requireOwnTask(db, userId, taskId)
  if (task.status !== 'completed') throw new HttpError(409, 'Only a finished image can have a favourite')
  const updated = await db
    .updateTable('generation_tasks')
    .set({
      favourite_index: index,
      result_key: sql`(SELECT key FROM task_versions WHERE task_id = ${task.id} AND version_index = ${index})`,
    })
    .where('id', '=', task.id)
    .where('status', '=', 'completed')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('task_versions').select('key').where('task_id', '=', task.id).where('version_index', '=', index),
      ),
    )
    .executeTakeFirst()
  if (updated.numUpdatedRows === 0n) throw badRequest(`This image has no version ${index}`)
  return { index }
}

/** The finished task's versions (index and key), lowest first, for a download of all of them. */
export async function listTaskVersions(db: DB, userId: string, taskId: string) {
  const task = await requireOwnTask(db, userId, taskId)
  if (task.status !== 'completed') throw new HttpError(409, 'This image is not finished yet')
  return db
    .selectFrom('task_versions')
    .select(['version_index as index', 'key'])
    .where('task_id', '=', task.id)
    .orderBy('version_index')
    .execute()
}

/** Version `index` of a task (its file, its size and the provider that made it), or undefined. */
export const findTaskVersion = (db: DB | Tx, taskId: string, index: number) =>
  db
    .selectFrom('task_versions')
    .select(['key', 'width', 'height', 'provider'])
    .where('task_id', '=', taskId)
    .where('version_index', '=', index)
    .executeTakeFirst()
