import type { DB } from '#platform/db.server.ts'
import { contentTypeForKey, getMediaBytes, getStorage } from '#platform/storage.server.ts'
import { HttpError, notFound } from '#domain/http-error.server.ts'
import { MAX_PET_PHOTOS } from '#domain/pets/pet-form.ts'
import { fileTooLarge, MAX_UPLOAD_BYTES } from '#domain/media/images.server.ts'
import { requireOwnTask, TASK_NOT_FOUND } from './own-task.server.ts'
import { taskPhotoKeys } from './task-photo-keys.ts'

/**
 * The photos a new pet is saved with (createPet): the uploads, or, with none and a `fromTask`, the
 * pet photo(s) of that image task of the user's (a saved pet's several, else the uploaded one):
 * "Save this pet" after a generation, without uploading again. Each file's size is checked before
 * it is read (an upload's 413), so a large stored file is never read into memory to be refused.
 */
export async function petPhotosToSave(db: DB, userId: string, uploads: File[], fromTask?: string): Promise<File[]> {
  if (uploads.length > 0 || !fromTask) return uploads
  const task = await requireOwnTask(db, userId, fromTask)
  const photoKeys = taskPhotoKeys(task)
  if (photoKeys.length === 0) throw notFound(TASK_NOT_FOUND)
  const count = Number((task.params as { petPhotoCount?: unknown }).petPhotoCount) || 1
  const storage = getStorage()
  const gone = () => new HttpError(409, 'The photo of that generation is no longer stored: please upload it')
  const files = []
  for (const key of photoKeys.slice(0, Math.min(count, MAX_PET_PHOTOS))) {
    const info = await storage.stat(key)
    if (!info) throw gone()
    if (info.size > MAX_UPLOAD_BYTES) throw fileTooLarge(MAX_UPLOAD_BYTES)
    const bytes = await getMediaBytes(storage, key)
    if (!bytes) throw gone()
    files.push(new File([new Uint8Array(bytes)], key.slice(key.lastIndexOf('/') + 1), { type: contentTypeForKey(key) }))
  }
  return files
}
