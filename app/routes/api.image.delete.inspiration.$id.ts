import { json } from '@remix-run/node'
import { deleteTemplate } from '#domain/gallery/templates.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'

export const handle = apiMethods('DELETE')

/** DELETE /api/image/delete/inspiration/{id}: admins remove a template (the spec calls it an inspiration image) and its files. */
export const action = apiHandler(async ({ request, params }) => {
  requireMethod(request, handle)
  await requirePermission(request, 'manageGallery')
  await deleteTemplate(getDb(), getStorage(), params.id ?? '')
  return json({ message: 'Image deleted' })
})
