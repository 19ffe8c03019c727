import { json } from '@remix-run/node'
import { listCreditHistory } from '#domain/credits/credit-history.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

/** GET /api/image/credit-history: the ledger lines and the current balance. */
export const loader = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  const history = await listCreditHistory(getDb(), user.id)
  return json({ history, credits: user.credits }, { headers: { 'Cache-Control': 'no-store' } })
})
