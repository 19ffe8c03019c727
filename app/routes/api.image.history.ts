import { json } from '@remix-run/node'
import { historyQuerySchema, listHistory } from '#domain/generation/user-tasks.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

/** GET /api/image/history?page&limit: the user's generated images, newest first. */
export const loader = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  const query = historyQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams))
  const { items, pagination } = await listHistory(getDb(), user.id, 'image', query)
  const data = items.map((item) => ({
    _id: item.id,
    imageUrl: item.url,
    images: item.images,
    favouriteIndex: item.favouriteIndex,
    createdAt: item.createdAt,
    expirationDate: item.expiresAt,
  }))
  return json({ data, pagination }, { headers: { 'Cache-Control': 'no-store' } })
})
