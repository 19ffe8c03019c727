import { json } from '@remix-run/node'
import { deleteInspirationImage } from '#app/models/inspiration.server.ts'
import { requireAdmin } from '#app/utils/admin-access.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { getDb } from '#app/utils/db.server.ts'
import { getStorage } from '#app/utils/storage.server.ts'

export const handle = apiMethods('DELETE')

/** DELETE /api/image/delete/inspiration/{id}: admins remove an inspiration image and its files. */
export const action = apiHandler(async ({ request, params }) => {
  requireMethod(request, handle)
  await requireAdmin(request)
  await deleteInspirationImage(getDb(), getStorage(), params.id ?? '')
  return json({ message: 'Image deleted' })
})
