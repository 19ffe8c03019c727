import { json } from '@remix-run/node'
import { updateProfile } from '#domain/accounts/account.server.ts'
import { toPublicUser } from '#domain/accounts/user.server.ts'
import { profileSchema } from '#domain/accounts/account-schemas.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { getRequestToken } from '#domain/sessions/auth.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'

export const handle = apiMethods('PUT')

/** PUT /api/auth/update-profile { name, password? } -> { message, user }. The email cannot change. */
export const action = apiHandler(async ({ request }) => {
  requireMethod(request, handle)
  const user = await requireUser(request)
  const input = profileSchema.parse(await readJson(request))
  const updated = await updateProfile(getDb(), user, input, await getRequestToken(request), getClientAddress(request))
  return json({ message: 'Profile updated successfully', user: toPublicUser(updated) })
})
