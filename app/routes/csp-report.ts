import type { ActionFunctionArgs } from '@remix-run/node'
import { json } from '@remix-run/node'
import { parseCspReports, recordCspViolations } from '#domain/operator/csp-reports.server.ts'
import { readBodyText } from '#app/utils/api.server.ts'
import { HttpError, errorResponse } from '#domain/http-error.server.ts'
import { consumeRateLimits, rateLimit } from '#domain/limits/rate-limit.server.ts'
import { clientLimitKey } from '#domain/limits/client-key.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'

const REPORT_TYPES = ['application/csp-report', 'application/reports+json']
const MAX_BYTES = 64 * 1024
// A browser batches a page's reports; a page that breaks sends a few dozen at most.
const REPORTS_PER_ADDRESS_PER_MINUTE = 60

/**
 * POST /csp-report: where browsers send Content-Security-Policy violations (decision 0020). No
 * session (reports come without cookies) and no CSRF check (server/app.ts exempts the path); bodies
 * are at most 64 kB of JSON and each address may send 60 a minute; what is kept is bounded too
 * (domain/operator/csp-reports.server.ts).
 */
export async function action({ request }: ActionFunctionArgs) {
  const contentType = request.headers.get('content-type') ?? ''
  if (!REPORT_TYPES.some((type) => contentType.toLowerCase().startsWith(type))) {
    return json({ message: `Send ${REPORT_TYPES.join(' or ')}` }, { status: 415 })
  }
  const limit = rateLimit(
    'csp-report:ip',
    clientLimitKey(getClientAddress(request)),
    REPORTS_PER_ADDRESS_PER_MINUTE,
    60,
  )
  try {
    await consumeRateLimits(getDb(), [limit])
    const body: unknown = JSON.parse(await readBodyText(request, MAX_BYTES))
    if (typeof body !== 'object' || body === null) throw new SyntaxError('not a report')
    const violations = parseCspReports(contentType, body)
    await recordCspViolations(getDb(), violations, getMetrics(), getEnv().CSP_REPORTS_MAX_PER_HOUR)
  } catch (error) {
    if (error instanceof SyntaxError) return json({ message: 'A report is a JSON object or list' }, { status: 400 })
    if (error instanceof HttpError) return errorResponse(error)
    throw error
  }
  return new Response(null, { status: 204 })
}
