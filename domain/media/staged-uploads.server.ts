import { getStorage, mediaKey } from '#platform/storage.server.ts'
import type { EncodedImage } from './images.server.ts'

/**
 * Uploads on their way in (a task's photos, a saved pet's), stored before the row that owns them
 * is written: under the owner's own prefix (`tasks/<id>`, `pets/<id>`), so deleting them can never
 * touch anyone else's files, and deleted again on any failure, so a refused submission leaves no
 * file behind.
 */

export type StagedImage = Pick<EncodedImage, 'bytes' | 'mimeType' | 'ext'>

/**
 * Stores the images under `prefix` (keys by content: the same image twice is one file), then runs
 * `save` with their keys, in order. Should storing or `save` fail, what this stored is deleted and
 * the error thrown on. `existingKeys`, the owner's files already stored, are neither written nor
 * deleted: an upload of one of them is that file.
 */
export async function withStagedImages<T>(
  prefix: string,
  images: StagedImage[],
  save: (keys: string[]) => Promise<T>,
  existingKeys: string[] = [],
): Promise<T> {
  const storage = getStorage()
  const written: string[] = []
  try {
    const keys: string[] = []
    for (const image of images) {
      const key = mediaKey(prefix, image.bytes, image.ext)
      if (!keys.includes(key) && !existingKeys.includes(key)) {
        await storage.put(key, image.bytes, image.mimeType)
        written.push(key)
      }
      keys.push(key)
    }
    return await save(keys)
  } catch (error) {
    await storage.deleteMany(written)
    throw error
  }
}
