import { mediaResponse } from '#app/utils/media-response.server.ts'
import { findSharePage, type SharePage } from '#domain/sharing/share-pages.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'

/** At most a minute in any cache: an unshare must not be outlived for long (decision 0037). */
const SHORT_CACHE = 'public, max-age=60'

/** A share page's image (`which` of its stored copies), or 404 once the page is gone or expired. */
export async function shareImageResponse(request: Request, slug: string, which: (page: SharePage) => string) {
  const page = await findSharePage(getDb(), slug)
  if (!page) return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain' } })
  return mediaResponse(request, getStorage(), which(page), SHORT_CACHE)
}
