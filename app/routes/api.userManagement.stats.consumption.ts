import { json } from '@remix-run/node'
import { consumptionRanking } from '#app/features/users/user-admin.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireRole } from '#app/utils/auth.server.ts'
import { getDb } from '#app/utils/db.server.ts'

export const loader = apiHandler(async ({ request }) => {
  await requireRole(request, 'superadmin')
  return json(await consumptionRanking(getDb()))
})
