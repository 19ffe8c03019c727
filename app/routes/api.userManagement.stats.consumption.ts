import { json } from '@remix-run/node'
import { consumptionRanking } from '#app/features/users/user-admin.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requirePermission } from '#app/utils/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

export const loader = apiHandler(async ({ request }) => {
  await requirePermission(request, 'manageUsers')
  return json(await consumptionRanking(getDb()))
})
