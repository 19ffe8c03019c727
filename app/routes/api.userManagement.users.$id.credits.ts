import { json } from '@remix-run/node'
import {
  creditsSchema,
  englishUserFormMessages,
  setCreditsAsAdmin,
  valueOrHttpError,
} from '#app/models/user-admin.server.ts'
import { toPublicUser } from '#app/models/user.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requireRole } from '#app/utils/auth.server.ts'
import { getDb } from '#app/utils/db.server.ts'

export const handle = apiMethods('PUT')

export const action = apiHandler(async ({ request, params }) => {
  await requireRole(request, 'superadmin')
  requireMethod(request, handle)
  const { credits } = creditsSchema(englishUserFormMessages).parse(await readJson(request))
  const user = valueOrHttpError(await setCreditsAsAdmin(getDb(), params.id ?? '', credits))
  return json(toPublicUser(user))
})
