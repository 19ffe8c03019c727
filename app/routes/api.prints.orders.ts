import { json } from '@remix-run/node'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { listOrders, placeOrder } from '#domain/prints/print-orders.server.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('POST')

/** GET /api/prints/orders → { orders }: the user's print orders, newest first. */
export const loader = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  return json({ orders: await listOrders(getDb(), user.id) }, { headers: { 'Cache-Control': 'private, no-store' } })
})

/** POST /api/prints/orders { quoteId, recipient } → 201 { order: { id, status, credits } }, credits debited. */
export const action = apiHandler(async ({ request }) => {
  requireMethod(request, handle)
  const user = await requireUser(request)
  const order = await placeOrder(getDb(), user.id, await readJson(request, { maxBytes: 16 * 1024 }))
  return json({ order }, { status: 201 })
})
