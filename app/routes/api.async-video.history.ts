import { json } from '@remix-run/node'
import { historyQuerySchema, listHistory } from '#domain/generation/user-tasks.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

/** GET /api/async-video/history?page&limit: the user's finished videos, newest first. */
export const loader = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  const query = historyQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams))
  const { items, pagination } = await listHistory(getDb(), user.id, 'video', query)
  const data = items.map((item) => ({ taskId: item.id, result: { videoUrl: item.url }, createdAt: item.createdAt }))
  return json({ data, pagination }, { headers: { 'Cache-Control': 'no-store' } })
})
