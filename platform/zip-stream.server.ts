import { Zip, ZipPassThrough } from 'fflate'
import type { MediaStorage } from './storage.server.ts'

/** A zip entry: a stored file by its key, or bytes made on the spot (a JSON or CSV file). */
export type ZipEntry = { name: string; key: string } | { name: string; bytes: Uint8Array }

/**
 * A zip of entries, written as it is read: one stored file at a time, stored without compression
 * (the images are compressed already), so neither the web nor the worker ever holds a whole set in
 * memory. A stored file that is gone meanwhile (expired) is left out; the rest still go. fflate
 * (pure JavaScript, no dependencies, no install step) writes the zip format (decision 0029).
 */
export function zipStream(storage: MediaStorage, entries: Iterable<ZipEntry>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const zip = new Zip((error, chunk, final) => {
        if (error) controller.error(error)
        else {
          controller.enqueue(chunk)
          if (final) controller.close()
        }
      })
      try {
        for (const entry of entries) {
          if ('bytes' in entry) {
            const file = new ZipPassThrough(entry.name)
            zip.add(file)
            file.push(entry.bytes, true)
            continue
          }
          const object = await storage.get(entry.key)
          if (!object) continue
          const file = new ZipPassThrough(entry.name)
          zip.add(file)
          for await (const chunk of object.body) file.push(new Uint8Array(chunk as Buffer), false)
          file.push(new Uint8Array(0), true)
        }
        zip.end()
      } catch (error) {
        controller.error(error)
      }
    },
  })
}
