import { json } from '@remix-run/node'
import { consumptionRanking } from '#domain/user-management/user-admin.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

export const loader = apiHandler(async ({ request }) => {
  await requirePermission(request, 'manageUsers')
  return json(await consumptionRanking(getDb()))
})
