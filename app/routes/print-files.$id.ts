import type { LoaderFunctionArgs } from '@remix-run/node'
import { mediaResponse } from '#app/utils/media-response.server.ts'
import { printFileAccess } from '#domain/prints/print-files.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'

const refusals = { 403: 'Forbidden', 404: 'Not found' } as const

/**
 * GET /print-files/<order id>?expires=…&signature=…: an order's print file at the signed URL the
 * print lab was given (domain/prints/print-files.server.ts), valid 14 days.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const access = await printFileAccess(getDb(), params.id ?? '', new URL(request.url))
  if (access.status !== 200) {
    return new Response(refusals[access.status], {
      status: access.status,
      headers: { 'Content-Type': 'text/plain', 'Cache-Control': 'private, no-store' },
    })
  }
  return mediaResponse(request, getStorage(), access.key, 'private, max-age=3600')
}
