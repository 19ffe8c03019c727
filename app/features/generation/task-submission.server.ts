import { randomUUID } from 'node:crypto'
import { createLimiter } from '#app/utils/concurrency.server.ts'
import type { DB } from '#platform/db.server.ts'
import { normalizeUploadedImage, type EncodedImage } from '#app/utils/images.server.ts'
import { getStorage, mediaKey } from '#platform/storage.server.ts'
import { createPaidTask, type NewTask } from './paid-tasks.server.ts'

// Decoding a large photo peaks at about 180 MB (24 megapixels) and is CPU-bound, so parallel
// uploads (images and videos alike) take turns: the web's memory stays bounded
// (bench/generation.ts measures it). The bytes are copied out of the form only once a turn comes.
const decodeTurn = createLimiter(1)

/**
 * Sniffs and re-encodes the uploads one after the other, stores them under the new task's own
 * prefix, then pays for and queues the task in one transaction. Any failure (a bad file, too few
 * credits, storage trouble) deletes what was stored, so a refused submission leaves no file behind.
 */
export async function submitPaidTask(db: DB, task: Omit<NewTask, 'id' | 'inputKeys'>, files: File[]) {
  const uploads: EncodedImage[] = []
  for (const file of files) {
    uploads.push(await decodeTurn(async () => normalizeUploadedImage(Buffer.from(await file.arrayBuffer()))))
  }

  const id = randomUUID()
  const storage = getStorage()
  const stored: string[] = []
  try {
    // Keys under the task's own prefix: deleting them can never touch another task's files.
    for (const upload of uploads) {
      const key = mediaKey(`tasks/${id}`, upload.bytes, upload.ext)
      await storage.put(key, upload.bytes, upload.mimeType)
      stored.push(key)
    }
    return await createPaidTask(db, { ...task, id, inputKeys: stored })
  } catch (error) {
    await storage.deleteMany(stored)
    throw error
  }
}
