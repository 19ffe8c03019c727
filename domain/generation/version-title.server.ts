import type { z } from 'zod'
import type { DB } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { badRequest, HttpError } from '#domain/http-error.server.ts'
import { requireDrawableTitle } from '#domain/titles/title-check.server.ts'
import { titleFontSchema, titleStyleSchema, titleTextSchema, type VersionTitle } from '#domain/titles/title-options.ts'
import { storeTitledCopy } from '#domain/titles/titled-copy.server.ts'
import { requireOwnTask } from './own-task.server.ts'
import { favouriteSchema } from './task-versions.server.ts'
import { previewKeysOf } from '#domain/media/previews.server.ts'

/**
 * PUT /api/async-image/task/{id}/title (issue 41, item 3): sets, changes or (with an empty title)
 * removes a version's title. Free and instant: the plain version is drawn on again, never
 * generated again. Only the owner's finished task; the replaced copy is deleted once the row points
 * at the new one.
 */

export const versionTitleChangeSchema = favouriteSchema.extend({
  title: titleTextSchema.default(''),
  style: titleStyleSchema.default('band'),
  font: titleFontSchema.default('playfair-display'),
})

export type VersionTitleChange = z.output<typeof versionTitleChangeSchema>

export async function changeVersionTitle(db: DB, userId: string, taskId: string, change: VersionTitleChange) {
  const task = await requireOwnTask(db, userId, taskId)
  if (task.status !== 'completed') throw new HttpError(409, 'Only a finished image can have a title')
  const version = await db
    .selectFrom('task_versions')
    .select(['key'])
    .where('task_id', '=', task.id)
    .where('version_index', '=', change.index)
    .executeTakeFirst()
  if (!version) throw badRequest(`This image has no version ${change.index}`)
  const title: VersionTitle | null = change.title
    ? { text: change.title, style: change.style, font: change.font }
    : null
  if (title) requireDrawableTitle(title)
  const key = title ? await storeTitledCopy(version.key, title) : null
  const replaced = await db.transaction().execute(async (tx) => {
    const before = await tx
      .selectFrom('task_versions')
      .select('titled_key')
      .where('task_id', '=', task.id)
      .where('version_index', '=', change.index)
      .forUpdate()
      .executeTakeFirst()
    if (!before) return undefined
    await tx
      .updateTable('task_versions')
      .set({
        title: title?.text ?? null,
        title_style: title?.style ?? null,
        title_font: title?.font ?? null,
        titled_key: key,
      })
      .where('task_id', '=', task.id)
      .where('version_index', '=', change.index)
      .execute()
    return { key: before.titled_key }
  })
  // Deleted meanwhile: the new copy goes too.
  if (!replaced) {
    if (key) await getStorage().deleteMany([key, ...previewKeysOf(key)])
    throw new HttpError(404, 'Task not found')
  }
  if (replaced.key && replaced.key !== key)
    await getStorage().deleteMany([replaced.key, ...previewKeysOf(replaced.key)])
  return { index: change.index, title }
}
