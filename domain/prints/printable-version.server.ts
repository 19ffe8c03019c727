import sharp from 'sharp'
import { z } from 'zod'
import type { DB } from '#platform/db.server.ts'
import { getMediaBytes, getStorage } from '#platform/storage.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { requireOwnTask } from '#domain/generation/own-task.server.ts'
import { findTaskVersion } from '#domain/generation/task-versions.server.ts'

/**
 * The version a print is made of: the user's own finished image (another user's is a 404, as a
 * missing one), not expired, with its stored file and its size in pixels.
 */

export const versionIndexSchema = z.coerce
  .number({ invalid_type_error: 'index must be a version number (0 for the first)' })
  .int('index must be a whole number')
  .min(0, 'index must be 0 or more')
  .max(9, 'index must be at most 9')

export async function printableVersion(db: DB, userId: string, taskId: string, index: number) {
  const task = await requireOwnTask(db, userId, taskId)
  if (task.status !== 'completed') {
    throw new HttpError(409, 'Only a finished portrait can be printed', { field: 'taskId' })
  }
  if (task.expires_at && task.expires_at.getTime() <= Date.now()) {
    throw new HttpError(409, 'This portrait has expired and can no longer be printed', { field: 'taskId' })
  }
  const version = await findTaskVersion(db, task.id, index)
  if (!version) throw new HttpError(404, `This portrait has no version ${index}`, { field: 'index' })
  let { width, height } = version
  if (!width || !height) {
    const bytes = await getMediaBytes(getStorage(), version.key)
    if (!bytes) throw new HttpError(409, 'This portrait has expired and can no longer be printed', { field: 'taskId' })
    const meta = await sharp(bytes).metadata()
    width = meta.width ?? 0
    height = meta.height ?? 0
  }
  return { taskId: task.id, index, key: version.key, size: { width, height } }
}
