import { json } from '@remix-run/node'
import { toPublicUser } from '#domain/accounts/user.server.ts'
import type { User } from '#platform/db-schema.ts'

/** The API's answer to a sign-in: `{ token, user }`, with the same token also set as the page cookie. */
export function signedInJson(session: { token: string; cookie: string; user: User }, status = 200) {
  return json(
    { token: session.token, user: toPublicUser(session.user) },
    { status, headers: { 'Set-Cookie': session.cookie } },
  )
}
