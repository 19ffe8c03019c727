import { json } from '@remix-run/node'
import { deleteFinishedTask } from '#app/features/generation/tasks.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireUser } from '#app/utils/permissions.server.ts'
import { getDb } from '#app/utils/db.server.ts'
import { HttpError } from '#app/utils/http.server.ts'

/** DELETE /api/async-video/delete/{taskId}: removes one of the user's videos and its files. */
export const action = apiHandler(async ({ request, params }) => {
  if (request.method !== 'DELETE') throw new HttpError(405, 'Use DELETE')
  const user = await requireUser(request)
  await deleteFinishedTask(getDb(), user.id, params.taskId ?? '', 'video')
  return json({ message: 'Video deleted' })
})
