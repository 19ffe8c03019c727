import { json } from '@remix-run/node'
import { apiHandler } from '#app/utils/api.server.ts'
import { endSession } from '#domain/sessions/auth.server.ts'

/**
 * POST /api/auth/logout -> { message }: revokes the session of the request's token (header or
 * cookie) and clears the cookie. Without a session it answers the same: the caller is logged out.
 */
export const action = apiHandler(async ({ request }) =>
  json({ message: 'Logged out' }, { headers: { 'Set-Cookie': await endSession(request) } }),
)
