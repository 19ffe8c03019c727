import { json } from '@remix-run/node'
import { deleteUserAsAdmin, valueOrHttpError } from '#app/models/user-admin.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requireRole } from '#app/utils/auth.server.ts'
import { getDb } from '#app/utils/db.server.ts'

export const handle = apiMethods('DELETE')

export const action = apiHandler(async ({ request, params }) => {
  await requireRole(request, 'superadmin')
  requireMethod(request, handle)
  valueOrHttpError(await deleteUserAsAdmin(getDb(), params.id ?? ''))
  return json({ message: 'User deleted' })
})
