import { json } from '@remix-run/node'
import { apiHandler } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { deleteTaskPhoto } from '#domain/user-data/task-photo.server.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('DELETE')

/** DELETE /api/async-image/task/{id}/photo: the owner's uploaded photo goes now; the result stays. */
export const action = apiHandler(async ({ request, params }) => {
  requireMethod(request, handle)
  const user = await requireUser(request)
  const { deleted } = await deleteTaskPhoto(getDb(), user.id, params.id ?? '')
  return json({ message: deleted > 0 ? 'Photo deleted' : 'This portrait has no stored photo', deleted })
})
