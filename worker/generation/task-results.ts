import sharp from 'sharp'
import type { GenerationTask } from '#platform/db-schema.ts'
import { assertMediaKey, contentTypeForKey, getMediaBytes, getStorage } from '#platform/storage.server.ts'
import type { DeliveredVersion } from '#domain/generation/task-version.ts'
import { withStorageRetries } from '#worker/storage-retries.ts'
import { withPrintDensity } from './print-density.ts'
import { ProviderError, type GeneratedMedia } from '#worker/providers/types.ts'

/**
 * Each version of a task's result lives under a key of its own, `tasks/<task id>/result.<ext>` for
 * version 0 and `result-<index>.<ext>` for the others, written as soon as the provider answers and
 * before the task is marked done. An attempt looks there first: a version that arrived while the
 * database was away, or just before the worker was stopped or killed, is used rather than paid for
 * again, and only the missing versions are asked for. The first bytes stored stay (never
 * overwritten), so the key still names one content and /media may cache it forever.
 */
const extensions: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
}

function resultKey(taskId: string, index: number, ext: string) {
  const key = `tasks/${taskId}/result${index === 0 ? '' : `-${index}`}.${ext}`
  assertMediaKey(key)
  return key
}

/**
 * The versions earlier attempts of this task received. `task` is the row of the attempt under way
 * (startTaskAttempt counted it): its first attempt has no earlier one to look for.
 */
export async function findStoredVersions(
  task: Pick<GenerationTask, 'id' | 'attempts' | 'variants'>,
): Promise<DeliveredVersion[]> {
  if (task.attempts <= 1) return []
  const storage = getStorage()
  const candidates = Array.from({ length: task.variants }, (_, index) =>
    Object.values(extensions).map((ext) => ({ index, key: resultKey(task.id, index, ext) })),
  ).flat()
  const found = await withStorageRetries(`looking for the results of ${task.id}`, () =>
    Promise.all(candidates.map(({ key }) => storage.stat(key))),
  )
  const stored = candidates.filter((_candidate, at) => found[at] !== null)
  return Promise.all(
    stored.map(async ({ index, key }) => {
      if (!contentTypeForKey(key).startsWith('image/')) return { index, key }
      const bytes = await withStorageRetries(`reading ${key}`, () => getMediaBytes(storage, key))
      return { index, key, ...(bytes ? await measure(bytes) : {}) }
    }),
  )
}

/** The version indexes of a task not stored yet, lowest first. */
export function missingVersions(variants: number, stored: DeliveredVersion[]): number[] {
  const have = new Set(stored.map((version) => version.index))
  return Array.from({ length: variants }, (_, index) => index).filter((index) => !have.has(index))
}

/** The one conversion on the worker's side: the provider's answer, stored, becomes a version. */
export async function storeVersion(taskId: string, index: number, answered: GeneratedMedia): Promise<DeliveredVersion> {
  const ext = extensions[answered.mimeType]
  if (!ext) throw new ProviderError('The provider answered with an unsupported file type.', { retryable: false })
  const key = resultKey(taskId, index, ext)
  const media = await withPrintDensity(answered)
  await withStorageRetries(`storing version ${index} of ${taskId}`, () =>
    getStorage().put(key, media.bytes, media.mimeType),
  )
  return { index, key, ...(media.mimeType.startsWith('image/') ? await measure(media.bytes) : {}) }
}

/** An image's size, or nothing for what sharp cannot read (a video). */
async function measure(bytes: Buffer): Promise<{ width?: number; height?: number }> {
  try {
    const { width, height } = await sharp(bytes).metadata()
    return { width, height }
  } catch {
    return {}
  }
}
