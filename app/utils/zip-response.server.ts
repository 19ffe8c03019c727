import { Zip, ZipPassThrough } from 'fflate'
import type { MediaStorage } from '#platform/storage.server.ts'

/**
 * A zip of stored files, streamed as it is read from storage: one file at a time, stored without
 * compression (the images are compressed already). It is read ahead of a slow client (no
 * backpressure), which is bounded by the few versions a run has (at most 4 images).
 * fflate (pure JavaScript, no dependencies, no install step) writes the zip format (decision 0029).
 */
export function zipResponse(
  storage: MediaStorage,
  downloadName: string,
  entries: Array<{ name: string; key: string }>,
): Response {
  const body = new ReadableStream<Uint8Array>({
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
          const object = await storage.get(entry.key)
          if (!object) continue // expired meanwhile: the rest still go
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
  return new Response(body, {
    headers: {
      'Content-Type': 'application/zip',
      'Content-Disposition': `attachment; filename="${downloadName}.zip"`,
      'Cache-Control': 'private, no-store',
    },
  })
}
