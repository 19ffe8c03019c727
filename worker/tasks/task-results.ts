import type { GenerationTask } from '#platform/db-schema.ts'
import { assertMediaKey, getStorage } from '#platform/storage.server.ts'
import { withStorageRetries } from '#worker/storage-retries.ts'
import { ProviderError, type GeneratedMedia } from '#worker/providers/types.ts'

/**
 * A task's result lives under a key of its own, `tasks/<task id>/result.<ext>`, written as soon as
 * the provider answers and before the task is marked done. An attempt looks there first: a
 * result that arrived while the database was away, or just before the worker was stopped or
 * killed, is used rather than paid for again. The first bytes stored stay (never overwritten), so
 * the key still names one content and /media may cache it forever.
 */
const extensions: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
}

function resultKey(taskId: string, ext: string) {
  const key = `tasks/${taskId}/result.${ext}`
  assertMediaKey(key)
  return key
}

/**
 * The key of a result an earlier attempt of this task received, or null. `task` is the row of the
 * attempt under way (startTaskAttempt counted it): its first attempt has no earlier one to look for.
 */
export async function findStoredResult(task: Pick<GenerationTask, 'id' | 'attempts'>): Promise<string | null> {
  if (task.attempts <= 1) return null
  const storage = getStorage()
  const keys = Object.values(extensions).map((ext) => resultKey(task.id, ext))
  const found = await withStorageRetries(`looking for the result of ${task.id}`, () =>
    Promise.all(keys.map((key) => storage.stat(key))),
  )
  return keys.find((_key, index) => found[index] !== null) ?? null
}

export async function storeResult(taskId: string, media: GeneratedMedia): Promise<string> {
  const ext = extensions[media.mimeType]
  if (!ext) throw new ProviderError('The provider answered with an unsupported file type.', { retryable: false })
  const key = resultKey(taskId, ext)
  await withStorageRetries(`storing the result of ${taskId}`, () => getStorage().put(key, media.bytes, media.mimeType))
  return key
}
