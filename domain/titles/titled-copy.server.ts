import { createHash } from 'node:crypto'
import { getMetrics } from '#platform/metrics.server.ts'
import { assertMediaKey, getMediaBytes, getStorage } from '#platform/storage.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { setTitle } from './title-render.server.ts'
import type { VersionTitle } from './title-options.ts'

/**
 * A version's titled copy is a file of its own beside the plain one, named after the plain file and
 * the title (`result-1-titled-<hash>.jpg`): a key names one content, so /media may cache it forever,
 * and the same title set twice is the same file.
 */
function titledKey(plainKey: string, title: VersionTitle) {
  const hash = createHash('sha256')
    .update(JSON.stringify([plainKey, title.text, title.style, title.font]))
    .digest('hex')
    .slice(0, 12)
  const key = `${plainKey.slice(0, plainKey.lastIndexOf('.'))}-titled-${hash}.jpg`
  assertMediaKey(key)
  return key
}

/**
 * Draws the title on the plain version (read from storage unless given) and stores the copy;
 * answers its key. Timed by outcome (`pawtrait_title_set_seconds`).
 */
export async function storeTitledCopy(plainKey: string, title: VersionTitle, plain?: Buffer) {
  const timer = getMetrics().titlesSet.startTimer()
  try {
    const storage = getStorage()
    const bytes = plain ?? (await getMediaBytes(storage, plainKey))
    if (!bytes) throw new HttpError(410, 'This version is no longer stored')
    const key = titledKey(plainKey, title)
    await storage.put(key, await setTitle(bytes, title), 'image/jpeg')
    timer({ outcome: 'set' })
    return key
  } catch (error) {
    timer({ outcome: 'failed' })
    throw error
  }
}
