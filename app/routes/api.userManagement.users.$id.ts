import { json } from '@remix-run/node'
import { deleteUserAsAdmin } from '#domain/user-management/user-admin.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('DELETE')

export const action = apiHandler(async ({ request, params }) => {
  await requirePermission(request, 'manageUsers')
  requireMethod(request, handle)
  await deleteUserAsAdmin(getDb(), params.id ?? '')
  return json({ message: 'User deleted' })
})
