import { json } from '@remix-run/node'
import { deleteUserAsAdmin, valueOrHttpError } from '#app/features/users/user-admin.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireRole } from '#app/utils/auth.server.ts'
import { getDb } from '#app/utils/db.server.ts'
import { HttpError } from '#app/utils/http.server.ts'

export const action = apiHandler(async ({ request, params }) => {
  await requireRole(request, 'superadmin')
  if (request.method !== 'DELETE') throw new HttpError(405, 'Method not allowed')
  valueOrHttpError(await deleteUserAsAdmin(getDb(), params.id ?? ''))
  return json({ message: 'User deleted' })
})
