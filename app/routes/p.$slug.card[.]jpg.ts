import type { LoaderFunctionArgs } from '@remix-run/node'
import { shareImageResponse } from '#app/sharing/share-image-response.server.ts'

/** GET /p/{slug}/card.jpg: the 1200×630 social card (og:image). */
export const loader = ({ request, params }: LoaderFunctionArgs) =>
  shareImageResponse(request, params.slug ?? '', (page) => page.card_key)
