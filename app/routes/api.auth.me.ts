import { json } from '@remix-run/node'
import { toPublicUser } from '#domain/accounts/user.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'

/** GET /api/auth/me: the signed-in user, or 401 'Authentication expired, please log in again'. */
export const loader = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  return json({ user: toPublicUser(user) }, { headers: { 'Cache-Control': 'no-store' } })
})
