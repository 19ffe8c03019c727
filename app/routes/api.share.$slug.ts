import { json } from '@remix-run/node'
import { deleteSharePage } from '#domain/sharing/share-pages.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('DELETE')

/** DELETE /api/share/{slug}: the owner unshares; the page and its images answer 404 at once. */
export const action = apiHandler(async ({ request, params }) => {
  requireMethod(request, handle)
  const user = await requireUser(request)
  await deleteSharePage(getDb(), user.id, params.slug ?? '')
  return json({ message: 'Share page deleted' })
})
