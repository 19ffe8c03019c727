import { json } from '@remix-run/node'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getOrder } from '#domain/prints/print-orders.server.ts'
import { getDb } from '#platform/db.server.ts'

/** GET /api/prints/orders/{id} → { order }: status, lab stage, shipments with tracking. */
export const loader = apiHandler(async ({ request, params }) => {
  const user = await requireUser(request)
  return json(
    { order: await getOrder(getDb(), user.id, params.id ?? '') },
    { headers: { 'Cache-Control': 'private, no-store' } },
  )
})
