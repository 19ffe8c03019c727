import { json } from '@remix-run/node'
import { listRecentTaskViews } from '#domain/generation/user-tasks.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

/** GET /api/async-image/tasks/today: the user's tasks (images and videos) of the last 24 hours. */
export const loader = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  const tasks = await listRecentTaskViews(getDb(), user.id)
  return json({ tasks }, { headers: { 'Cache-Control': 'no-store' } })
})
