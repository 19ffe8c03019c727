import type { MediaStorage } from '#platform/storage.server.ts'
import { zipStream } from '#platform/zip-stream.server.ts'

/** A zip of stored files as a download, streamed as it is read from storage (zip-stream.server.ts). */
export function zipResponse(
  storage: MediaStorage,
  downloadName: string,
  entries: Array<{ name: string; key: string }>,
): Response {
  return new Response(zipStream(storage, entries), {
    headers: {
      'Content-Type': 'application/zip',
      'Content-Disposition': `attachment; filename="${downloadName}.zip"`,
      'Cache-Control': 'private, no-store',
    },
  })
}
