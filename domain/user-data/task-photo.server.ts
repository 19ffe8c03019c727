import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { requireOwnTask } from '#domain/generation/own-task.server.ts'
import { taskPhotoKeys } from '#domain/generation/task-photo-keys.ts'

/**
 * "Delete my photo now" (issue 32 item 6): the photo a task was made from goes at once, from storage
 * and from `input_keys` of every task of the user that uses it (a re-roll or fix shares its
 * parent's photo, decision 0030), so re-rolling or fixing any of them answers "photo gone" (410).
 * The results stay. A saved pet's own photos (`pets/…`) are the pet's and stay with it, and an
 * upscale's input (its parent's result) is no photo: only taskPhotoKeys are deleted. Refused
 * (409) while a task that uses the photo is still being made: the worker needs it.
 */
export async function deleteTaskPhoto(db: DB, userId: string, taskId: string) {
  // Any kind: a video made from a photo keeps it too.
  const task = await requireOwnTask(db, userId, taskId, { kind: null })
  const keys = taskPhotoKeys(task)
  if (keys.length === 0) return { deleted: 0 }
  await db.transaction().execute(async (tx) => {
    const users = await tx
      .selectFrom('generation_tasks')
      .select(['id', 'status'])
      .where('user_id', '=', userId)
      .where(sql<boolean>`input_keys && ${keys}::text[]`)
      .forUpdate()
      .execute()
    if (users.some((row) => row.status === 'queued' || row.status === 'processing')) {
      throw new HttpError(409, 'This photo is in use by a portrait still being generated; try again when it is done')
    }
    await tx
      .updateTable('generation_tasks')
      .set({ input_keys: sql`ARRAY(SELECT k FROM unnest(input_keys) k WHERE NOT k = ANY(${keys}::text[]))` })
      .where(
        'id',
        'in',
        users.map((row) => row.id),
      )
      .execute()
    // Inside the transaction: a storage failure leaves the rows as they were.
    await getStorage().deleteMany(keys)
  })
  return { deleted: keys.length }
}

/** Which of these tasks of the user still have a photo of their own kept, for the "Delete my photo now" buttons. */
export async function tasksWithPhoto(db: DB, userId: string, taskIds: string[]) {
  if (taskIds.length === 0) return []
  const rows = await db
    .selectFrom('generation_tasks')
    .select(['id', 'source', 'family_root_id', 'input_keys'])
    .where('user_id', '=', userId)
    .where('id', 'in', taskIds)
    .execute()
  return rows.filter((row) => taskPhotoKeys(row).length > 0).map((row) => row.id)
}
