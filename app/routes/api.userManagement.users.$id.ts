import { json } from '@remix-run/node'
import { deleteUserAsAdmin } from '#app/features/users/user-admin.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requirePermission } from '#app/utils/permissions.server.ts'
import { getDb } from '#app/utils/db.server.ts'
import { HttpError } from '#app/utils/http.server.ts'

export const action = apiHandler(async ({ request, params }) => {
  await requirePermission(request, 'manageUsers')
  if (request.method !== 'DELETE') throw new HttpError(405, 'Method not allowed')
  await deleteUserAsAdmin(getDb(), params.id ?? '')
  return json({ message: 'User deleted' })
})
