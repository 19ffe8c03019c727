import { json } from '@remix-run/node'
import { apiHandler } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { cancelOrder } from '#domain/prints/print-orders.server.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('POST')

/** POST /api/prints/orders/{id}/cancel → { order }: cancelled and refunded while the lab allows it, else 409. */
export const action = apiHandler(async ({ request, params }) => {
  requireMethod(request, handle)
  const user = await requireUser(request)
  return json({ order: await cancelOrder(getDb(), user.id, params.id ?? '') })
})
