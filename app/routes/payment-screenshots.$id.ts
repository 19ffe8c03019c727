import type { LoaderFunctionArgs } from '@remix-run/node'
import { mediaResponse } from '#app/utils/media-response.server.ts'
import { screenshotAccess } from '#domain/payments/payment-screenshots.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'

const refusals = { 403: 'Forbidden', 404: 'Not found' } as const

/**
 * GET /payment-screenshots/<proof id>?expires=…&signature=…: a payment proof's screenshot at the
 * short-lived signed URL its `screenshotUrl` gives the owner and super administrators
 * (domain/payments/payment-screenshots.server.ts). Kept only by the browser, until it expires.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const access = await screenshotAccess(getDb(), params.id ?? '', new URL(request.url))
  if (access.status !== 200) {
    return new Response(refusals[access.status], {
      status: access.status,
      headers: { 'Content-Type': 'text/plain', 'Cache-Control': 'private, no-store' },
    })
  }
  return mediaResponse(request, getStorage(), access.key, `private, max-age=${access.maxAge}`)
}
