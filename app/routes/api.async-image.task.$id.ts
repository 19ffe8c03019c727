import { json } from '@remix-run/node'
import { findTaskView } from '#domain/generation/user-tasks.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireUserId } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { notFound } from '#domain/http-error.server.ts'

/** GET /api/async-image/task/{id}: the owner's image task with its place in the queue. */
export const loader = apiHandler(async ({ request, params }) => {
  const userId = await requireUserId(request)
  const task = await findTaskView(getDb(), userId, params.id ?? '', 'image')
  if (!task) throw notFound('Task not found')
  return json(task, { headers: { 'Cache-Control': 'no-store' } })
})
