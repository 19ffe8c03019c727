import type { LoaderFunctionArgs } from '@remix-run/node'
import { shareImageResponse } from '#app/sharing/share-image-response.server.ts'

/** GET /p/{slug}/image.webp: the share page's picture (never its /media key). */
export const loader = ({ request, params }: LoaderFunctionArgs) =>
  shareImageResponse(request, params.slug ?? '', (page) => page.image_key)
