import { json } from '@remix-run/node'
import { analyticsSummary } from '#domain/analytics/report.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { dateRangeSchema } from '#domain/analytics/date-range.ts'
import { getDb } from '#platform/db.server.ts'

/**
 * GET /api/analytics/basic?startDate&endDate: the spec's "variant for other roles" of the overview
 * (decision 0014): for admins (and superadmins), the activity counts of the range and the
 * generations per day; no payments, no locations, no event lists. Plain users get 403.
 */
export const loader = apiHandler(async ({ request }) => {
  await requirePermission(request, 'viewBasicAnalytics')
  const range = dateRangeSchema.parse(Object.fromEntries(new URL(request.url).searchParams))
  const { counts, imageGenerationsByDay } = await analyticsSummary(getDb(), range, 0)
  const { creditPurchases: _money, ...activity } = counts
  return json(
    { startDate: range.startDate, endDate: range.endDate, counts: activity, imageGenerationsByDay },
    { headers: { 'Cache-Control': 'no-store' } },
  )
})
