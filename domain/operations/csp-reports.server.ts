/**
 * Content-Security-Policy violation reports (decision 0020). Browsers send them to POST
 * /csp-report (app/routes/csp-report.ts) in one of two formats: `application/csp-report` for the
 * policy's `report-uri`, and `application/reports+json` (the Reporting API, `report-to`), a list
 * that can also hold reports of other types. Each violation is logged as one line, counted in
 * pawtrait_csp_violations_total and kept a week for the status page.
 */
import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import type { Metrics } from '#platform/metrics.server.ts'

export interface CspViolation {
  page: string
  blockedUrl: string
  directive: string
  disposition: 'enforce' | 'report'
}

const MAX_FIELD = 500
const KEPT_DAYS = 7
const RECENT_SHOWN = 10
// A browser batches a page's reports; more than this in one request is not a real page's doing.
const MAX_PER_REQUEST = 20
// Directive names are the metric's label: CSP's own as they are, anything else (reports are
// anonymous) as `other`, so that no one can grow the registry.
const DIRECTIVES = new Set([
  'default-src',
  'script-src',
  'script-src-elem',
  'script-src-attr',
  'style-src',
  'style-src-elem',
  'style-src-attr',
  'img-src',
  'media-src',
  'font-src',
  'connect-src',
  'frame-src',
  'child-src',
  'worker-src',
  'manifest-src',
  'object-src',
  'base-uri',
  'form-action',
  'frame-ancestors',
  'trusted-types',
  'require-trusted-types-for',
])

const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, MAX_FIELD) : '')

function violation(body: Record<string, unknown>, fields: Record<keyof CspViolation, string[]>): CspViolation | null {
  const pick = (names: string[]) => names.map((name) => text(body[name])).find(Boolean) ?? ''
  const directive = pick(fields.directive).split(' ')[0]
  if (!directive) return null
  return {
    page: pick(fields.page),
    blockedUrl: pick(fields.blockedUrl),
    directive,
    disposition: pick(fields.disposition) === 'report' ? 'report' : 'enforce',
  }
}

/** The violations in a report body (at most 20); anything that is not one is ignored. */
export function parseCspReports(contentType: string, body: unknown): CspViolation[] {
  if (/^application\/reports\+json/i.test(contentType)) {
    if (!Array.isArray(body)) return []
    return body
      .filter((report) => report?.type === 'csp-violation' && typeof report.body === 'object' && report.body)
      .slice(0, MAX_PER_REQUEST)
      .map((report) =>
        violation(report.body, {
          page: ['documentURL'],
          blockedUrl: ['blockedURL'],
          directive: ['effectiveDirective'],
          disposition: ['disposition'],
        }),
      )
      .filter((found): found is CspViolation => found !== null)
  }
  const report = (body as { 'csp-report'?: unknown } | null)?.['csp-report']
  if (typeof report !== 'object' || !report) return []
  const found = violation(report as Record<string, unknown>, {
    page: ['document-uri'],
    blockedUrl: ['blocked-uri'],
    directive: ['effective-directive', 'violated-directive'],
    disposition: ['disposition'],
  })
  return found ? [found] : []
}

/** Logs, counts and keeps each violation; reports older than a week go at the same time. */
export async function recordCspViolations(db: DB, violations: CspViolation[], metrics: Metrics | null) {
  if (violations.length === 0) return
  for (const found of violations) {
    getLogger().warn(
      { cspViolation: found },
      `CSP violation: ${found.directive} blocked ${found.blockedUrl || '(none)'}`,
    )
    const label = DIRECTIVES.has(found.directive) ? found.directive : 'other'
    metrics?.cspViolations.inc({ directive: label, disposition: found.disposition })
  }
  await db
    .insertInto('csp_reports')
    .values(
      violations.map((found) => ({
        page: found.page,
        blocked_url: found.blockedUrl,
        directive: found.directive,
        disposition: found.disposition,
      })),
    )
    .execute()
  await db
    .deleteFrom('csp_reports')
    .where('received_at', '<', sql<Date>`now() - make_interval(days => ${KEPT_DAYS})`)
    .execute()
}

/** For the status page: the last day's count and the latest reports. */
export async function cspReportSummary(db: DB) {
  const [count, recent] = await Promise.all([
    db
      .selectFrom('csp_reports')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('received_at', '>', sql<Date>`now() - interval '1 day'`)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('csp_reports')
      .select(['id', 'received_at', 'page', 'blocked_url', 'directive', 'disposition'])
      .orderBy('id', 'desc')
      .limit(RECENT_SHOWN)
      .execute(),
  ])
  return {
    lastDay: Number(count.count),
    recent: recent.map((row) => ({
      id: row.id,
      receivedAt: row.received_at,
      page: row.page,
      blockedUrl: row.blocked_url,
      directive: row.directive,
      disposition: row.disposition,
    })),
  }
}
