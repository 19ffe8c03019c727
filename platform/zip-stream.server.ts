import { Zip, ZipPassThrough } from 'fflate'
import type { MediaStorage } from './storage.server.ts'

/** A zip entry: a stored file by its key, or bytes made on the spot (a JSON or CSV file). */
export type ZipEntry = { name: string; key: string } | { name: string; bytes: Uint8Array }

/**
 * A zip of entries, made as it is read: one stored file at a time, stored without compression (the
 * images are compressed already), and pulled, so a slow reader (a client, a disk) holds back the
 * reading from storage: at most one storage chunk is in memory, however big the set (a user's
 * data export). A stored file that is gone meanwhile (expired) is left out; the rest still go.
 * fflate (pure JavaScript, no dependencies, no install step) writes the zip format (decision 0029).
 */
export async function* zipChunks(storage: MediaStorage, entries: Iterable<ZipEntry>): AsyncGenerator<Uint8Array> {
  const ready: Uint8Array[] = []
  // fflate hands out the zip's bytes synchronously, from inside each push.
  const zip = new Zip((error, chunk) => {
    if (error) throw error
    ready.push(chunk)
  })
  const take = () => ready.splice(0, ready.length)
  for (const entry of entries) {
    if ('bytes' in entry) {
      const file = new ZipPassThrough(entry.name)
      zip.add(file)
      file.push(entry.bytes, true)
      yield* take()
      continue
    }
    const object = await storage.get(entry.key)
    if (!object) continue
    const file = new ZipPassThrough(entry.name)
    zip.add(file)
    for await (const chunk of object.body) {
      file.push(new Uint8Array(chunk as Buffer), false)
      yield* take()
    }
    file.push(new Uint8Array(0), true)
    yield* take()
  }
  zip.end()
  yield* take()
}

/** zipChunks as a web stream, for a download. */
export function zipStream(storage: MediaStorage, entries: Iterable<ZipEntry>): ReadableStream<Uint8Array> {
  const chunks = zipChunks(storage, entries)
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await chunks.next()
      if (done) controller.close()
      else controller.enqueue(value)
    },
    async cancel() {
      await chunks.return(undefined)
    },
  })
}
