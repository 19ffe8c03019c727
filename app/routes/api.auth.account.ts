import { json } from '@remix-run/node'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { getRequestToken, getSessionCookie } from '#domain/sessions/auth.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { accountDeletionSchema, deleteOwnAccount } from '#domain/user-data/own-account-deletion.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'

export const handle = apiMethods('DELETE')

/**
 * DELETE /api/auth/account { password, confirmation: "DELETE" } -> { message }: deletes the caller's
 * own account (a Google-only account: no password, but a Google sign-in of the last 10 minutes).
 * 400 for a missing confirmation or password, 403 for a wrong password; nothing is deleted then.
 */
export const action = apiHandler(async ({ request }) => {
  requireMethod(request, handle)
  const user = await requireUser(request)
  const input = accountDeletionSchema.parse(await readJson(request))
  await deleteOwnAccount(getDb(), user, (await getRequestToken(request)) ?? '', input, getClientAddress(request))
  const cookie = await getSessionCookie().serialize('', { maxAge: 0 })
  return json({ message: 'Your account has been deleted' }, { headers: { 'Set-Cookie': cookie } })
})
