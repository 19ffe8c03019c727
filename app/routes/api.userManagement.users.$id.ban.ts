import { json } from '@remix-run/node'
import { z } from 'zod'
import { setBannedAsAdmin, valueOrHttpError } from '#app/models/user-admin.server.ts'
import { toPublicUser } from '#app/models/user.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requireRole } from '#app/utils/auth.server.ts'
import { getDb } from '#app/utils/db.server.ts'

const banSchema = z.object({ isBanned: z.boolean({ message: 'isBanned must be true or false' }) })

export const handle = apiMethods('PUT')

export const action = apiHandler(async ({ request, params }) => {
  await requireRole(request, 'superadmin')
  requireMethod(request, handle)
  const { isBanned } = banSchema.parse(await readJson(request))
  const user = valueOrHttpError(await setBannedAsAdmin(getDb(), params.id ?? '', isBanned))
  return json(toPublicUser(user))
})
