import { promisify } from 'node:util'
import { constants, gzip } from 'node:zlib'
import { analyticsOverviewJson } from '#domain/analytics/report.server.ts'
import { keptPartOf } from '#domain/analytics/retention.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { dateRangeSchema } from '#domain/analytics/date-range.ts'
import { getDb } from '#platform/db.server.ts'

const gzipAsync = promisify(gzip)

/**
 * The body is JSON text already (see analyticsOverviewJson) and can run to megabytes. The server's
 * general compression (level 6, in small streamed chunks) would take longer than the queries, so
 * this answer is compressed here in one go at the fastest level; the middleware leaves it alone.
 */
async function jsonAnswer(request: Request, body: string) {
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    Vary: 'Accept-Encoding',
  }
  if (!/\bgzip\b/i.test(request.headers.get('accept-encoding') ?? '')) return new Response(body, { headers })
  const compressed = await gzipAsync(body, { level: constants.Z_BEST_SPEED })
  return new Response(compressed, { headers: { ...headers, 'Content-Encoding': 'gzip' } })
}

export const loader = apiHandler(async ({ request }) => {
  await requirePermission(request, 'viewAnalytics')
  const range = dateRangeSchema.parse(Object.fromEntries(new URL(request.url).searchParams))
  // Records exist only where raw events are kept (ANALYTICS_RAW_RETENTION_DAYS): the answer says from when.
  const kept = await keptPartOf(getDb(), range)
  return jsonAnswer(request, await analyticsOverviewJson(getDb(), kept.range, kept.recordsFrom))
})
