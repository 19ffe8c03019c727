import { json } from '@remix-run/node'
import { creditsSchema, englishUserFormMessages, setCreditsAsAdmin } from '#domain/user-management/user-admin.server.ts'
import { toPublicUser } from '#domain/accounts/user.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('PUT')

export const action = apiHandler(async ({ request, params }) => {
  await requirePermission(request, 'manageUsers')
  requireMethod(request, handle)
  const { credits } = creditsSchema(englishUserFormMessages).parse(await readJson(request))
  const user = await setCreditsAsAdmin(getDb(), params.id ?? '', credits)
  return json(toPublicUser(user))
})
