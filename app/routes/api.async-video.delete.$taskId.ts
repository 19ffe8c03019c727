import { json } from '@remix-run/node'
import { deleteFinishedTask } from '#domain/generation/user-tasks.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('DELETE')

/** DELETE /api/async-video/delete/{taskId}: removes one of the user's videos and its files. */
export const action = apiHandler(async ({ request, params }) => {
  requireMethod(request, handle)
  const user = await requireUser(request)
  await deleteFinishedTask(getDb(), user.id, params.taskId ?? '', 'video')
  return json({ message: 'Video deleted' })
})
