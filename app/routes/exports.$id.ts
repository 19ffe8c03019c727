import type { LoaderFunctionArgs } from '@remix-run/node'
import { mediaResponse } from '#app/utils/media-response.server.ts'
import { exportAccess } from '#domain/user-data/data-exports.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'

const refusals = { 403: 'Forbidden', 404: 'This data export does not exist or has expired' } as const

/**
 * GET /exports/<id>?signature=…: a user's data export, at the signed link emailed and shown on
 * /profile (domain/user-data/data-exports.server.ts), for 24 hours. Never cached by a shared cache.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const access = await exportAccess(getDb(), params.id ?? '', new URL(request.url))
  if (access.status !== 200) {
    return new Response(refusals[access.status], {
      status: access.status,
      headers: { 'Content-Type': 'text/plain', 'Cache-Control': 'private, no-store' },
    })
  }
  const response = await mediaResponse(request, getStorage(), access.key, `private, max-age=${access.maxAge}`)
  response.headers.set('Content-Disposition', 'attachment; filename="pawtrait-data.zip"')
  return response
}
