import { json } from '@remix-run/node'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { createQuote } from '#domain/prints/print-quotes.server.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('POST')

/**
 * POST /api/prints/quote { taskId, index, sku, attributes, copies, countryCode, shippingMethod, crop? }
 * → { quoteId, credits, cost: { items, shipping, currency }, delivery, expiresAt }: kept 30 minutes.
 */
export const action = apiHandler(async ({ request }) => {
  requireMethod(request, handle)
  const user = await requireUser(request)
  return json(await createQuote(getDb(), user.id, await readJson(request, { maxBytes: 16 * 1024 })))
})
