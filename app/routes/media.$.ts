import type { LoaderFunctionArgs } from '@remix-run/node'
import { mediaResponse } from '#app/utils/media-response.server.ts'
import { isScreenshotKey } from '#domain/payments/payment-screenshots.server.ts'
import { isExportKey } from '#domain/user-data/data-exports.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { isSharePageKey } from '#domain/sharing/share-pages.server.ts'
import { isPrintFileKey } from '#domain/prints/print-files.server.ts'
import { isPreviewWidth } from '#domain/media/media-url.ts'
import { ensurePreview } from '#domain/media/previews.server.ts'

const notFound = () => new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain' } })

/**
 * GET /media/<key>: stored media. Keys are unguessable content hashes under random prefixes.
 * Payment screenshots and data exports are not served here, only at their signed URLs
 * (payment-screenshots.$id.ts, exports.$id.ts), nor a share page's copies, only under /p/{slug}/
 * (decision 0037), nor a print order's print file, only at the lab's signed URL (print-files.$id.ts).
 * `?w=480` or `?w=720` answers a picture's WebP preview at that width (domain/media/previews.server.ts).
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const key = params['*'] ?? ''
  if (isScreenshotKey(key) || isExportKey(key) || isSharePageKey(key) || isPrintFileKey(key)) return notFound()
  const asked = new URL(request.url).searchParams.get('w')
  if (asked === null) return mediaResponse(request, getStorage(), key)
  const width = Number(asked)
  const preview = isPreviewWidth(width) ? await ensurePreview(getStorage(), key, width) : null
  return preview ? mediaResponse(request, getStorage(), preview) : notFound()
}
