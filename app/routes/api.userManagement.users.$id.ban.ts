import { json } from '@remix-run/node'
import { z } from 'zod'
import { setBannedAsAdmin } from '#domain/user-management/user-admin.server.ts'
import { toPublicUser } from '#domain/accounts/user.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

const banSchema = z.object({ isBanned: z.boolean({ message: 'isBanned must be true or false' }) })

export const handle = apiMethods('PUT')

export const action = apiHandler(async ({ request, params }) => {
  await requirePermission(request, 'manageUsers')
  requireMethod(request, handle)
  const { isBanned } = banSchema.parse(await readJson(request))
  const user = await setBannedAsAdmin(getDb(), params.id ?? '', isBanned)
  return json(toPublicUser(user))
})
