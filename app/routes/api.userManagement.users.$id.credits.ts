import { json } from '@remix-run/node'
import { creditsSchema, englishUserFormMessages, setCreditsAsAdmin } from '#app/features/users/user-admin.server.ts'
import { toPublicUser } from '#app/features/accounts/user.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { requirePermission } from '#app/utils/permissions.server.ts'
import { getDb } from '#app/utils/db.server.ts'
import { HttpError } from '#app/utils/http.server.ts'

export const action = apiHandler(async ({ request, params }) => {
  await requirePermission(request, 'manageUsers')
  if (request.method !== 'PUT') throw new HttpError(405, 'Method not allowed')
  const { credits } = creditsSchema(englishUserFormMessages).parse(await readJson(request))
  const user = await setCreditsAsAdmin(getDb(), params.id ?? '', credits)
  return json(toPublicUser(user))
})
