import { json } from '@remix-run/node'
import { deleteTemplate } from '#app/features/gallery/templates.server.ts'
import { requirePermission } from '#app/utils/permissions.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { getDb } from '#app/utils/db.server.ts'
import { getStorage } from '#app/utils/storage.server.ts'

/** DELETE /api/image/delete/inspiration/{id}: admins remove a template (the spec calls it an inspiration image) and its files. */
export const action = apiHandler(async ({ request, params }) => {
  if (request.method !== 'DELETE') return json({ message: 'Method not allowed' }, { status: 405 })
  await requirePermission(request, 'manageGallery')
  await deleteTemplate(getDb(), getStorage(), params.id ?? '')
  return json({ message: 'Image deleted' })
})
