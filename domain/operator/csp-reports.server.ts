/**
 * Content-Security-Policy violation reports (decisions 0020, 0025). Browsers send them to POST
 * /csp-report (app/routes/csp-report.ts) in one of two formats: `application/csp-report` for the
 * policy's `report-uri`, and `application/reports+json` (the Reporting API, `report-to`), a list
 * that can also hold reports of other types.
 *
 * Reports are anonymous and a browser extension produces them on every page, so what they cost is
 * bounded: a violation keeps only the page's path and the blocked origin (links carry tokens in
 * their query strings); the same kind (directive, page, blocked origin, disposition) is one row
 * with a count; at most CSP_REPORTS_MAX_PER_HOUR new kinds are stored an hour; a kind is logged
 * at most once an hour. Every violation is counted in pawtrait_csp_violations_total. Kinds not
 * seen for a week go.
 */
import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import type { Metrics } from '#platform/metrics.server.ts'
import { pathOf, withoutQuery } from '#platform/url-redaction.ts'

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

// PostgreSQL text cannot hold U+0000, which a JSON body can: the insert would fail (a 500).
const text = (value: unknown) => (typeof value === 'string' ? value.replaceAll('\0', '').slice(0, MAX_FIELD) : '')

/** What was blocked, as an origin (`https://cdn.example`), a scheme (`data`) or CSP's word (`inline`, `eval`). */
function blockedOrigin(blocked: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(blocked)) {
    try {
      const url = new URL(blocked)
      return url.origin === 'null' ? url.protocol.slice(0, -1) : url.origin
    } catch {
      return withoutQuery(blocked)
    }
  }
  return withoutQuery(blocked.replace(/^([a-z][a-z0-9+.-]*):.*$/is, '$1'))
}

function violation(body: Record<string, unknown>, fields: Record<keyof CspViolation, string[]>): CspViolation | null {
  const pick = (names: string[]) => names.map((name) => text(body[name])).find(Boolean) ?? ''
  const directive = pick(fields.directive).split(' ')[0]
  if (!directive) return null
  const page = pick(fields.page)
  return {
    page: page && pathOf(page),
    blockedUrl: blockedOrigin(pick(fields.blockedUrl)),
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

interface Kind extends CspViolation {
  count: number
}

const kindKey = (found: CspViolation) =>
  JSON.stringify([found.directive, found.page, found.blockedUrl, found.disposition])

function kindsOf(violations: CspViolation[]): Map<string, Kind> {
  const kinds = new Map<string, Kind>()
  for (const found of violations) {
    const kind = kinds.get(kindKey(found))
    if (kind) kind.count += 1
    else kinds.set(kindKey(found), { ...found, count: 1 })
  }
  return kinds
}

// This process's last "over the hourly limit" line: one an hour.
let lastOverLimitLine = 0

/**
 * Counts each violation and adds it to its kind's row. A kind not stored yet gets a row while
 * fewer than `maxNewPerHour` rows were added in the last hour (across web processes: the count
 * and the insert hold one lock); beyond that it is only counted in the metric. A kind is logged
 * when its row is added and then at most once an hour.
 */
export async function recordCspViolations(
  db: DB,
  violations: CspViolation[],
  metrics: Metrics | null,
  maxNewPerHour: number,
) {
  if (violations.length === 0) return
  for (const found of violations) {
    const label = DIRECTIVES.has(found.directive) ? found.directive : 'other'
    metrics?.cspViolations.inc({ directive: label, disposition: found.disposition })
  }
  const kinds = kindsOf(violations)
  const { stored, dropped } = await db.transaction().execute(async (tx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext('csp_reports'))`.execute(tx)
    const tuples = sql.join(
      [...kinds.values()].map(
        (kind) => sql`(${kind.directive}, ${kind.page}, ${kind.blockedUrl}, ${kind.disposition})`,
      ),
    )
    const [{ rows: known }, { rows: added }] = await Promise.all([
      sql<CspViolation>`
        SELECT directive, page, blocked_url AS "blockedUrl", disposition FROM csp_reports
        WHERE (directive, page, blocked_url, disposition) IN (${tuples})`.execute(tx),
      sql<{ count: string }>`
        SELECT count(*) FROM csp_reports WHERE received_at > now() - interval '1 hour'`.execute(tx),
    ])
    const knownKeys = new Set(known.map(kindKey))
    let room = Math.max(0, maxNewPerHour - Number(added[0].count))
    const kept: Kind[] = []
    let dropped = 0
    for (const [key, kind] of kinds) {
      if (knownKeys.has(key)) kept.push(kind)
      else if (room > 0) {
        kept.push(kind)
        room -= 1
      } else dropped += kind.count
    }
    if (kept.length === 0) return { stored: [], dropped }
    const values = sql.join(
      kept.map(
        (kind) => sql`(${kind.directive}, ${kind.page}, ${kind.blockedUrl}, ${kind.disposition}, ${kind.count}::int)`,
      ),
    )
    const { rows } = await sql<Kind & { log: boolean }>`
      INSERT INTO csp_reports (directive, page, blocked_url, disposition, count) VALUES ${values}
      ON CONFLICT (directive, page, blocked_url, disposition) DO UPDATE SET
        count = csp_reports.count + excluded.count,
        last_seen_at = now(),
        logged_at = CASE WHEN csp_reports.logged_at <= now() - interval '1 hour' THEN now() ELSE csp_reports.logged_at END
      RETURNING directive, page, blocked_url AS "blockedUrl", disposition, count, logged_at = now() AS log`.execute(tx)
    return { stored: rows, dropped }
  })
  for (const { log, ...kind } of stored) {
    if (!log) continue
    getLogger().warn(
      { cspViolation: kind },
      `CSP violation: ${kind.directive} blocked ${kind.blockedUrl || '(none)'} on ${kind.page || '(unknown page)'} (${kind.count} so far; logged once an hour)`,
    )
  }
  if (dropped > 0 && Date.now() - lastOverLimitLine > 3_600_000) {
    lastOverLimitLine = Date.now()
    getLogger().warn(
      { cspReportsDropped: dropped },
      'CSP reports: CSP_REPORTS_MAX_PER_HOUR new kinds were stored in the last hour; new kinds are only counted in the metric (logged once an hour)',
    )
  }
  await db
    .deleteFrom('csp_reports')
    .where('last_seen_at', '<', sql<Date>`now() - make_interval(days => ${KEPT_DAYS})`)
    .execute()
}

/** For the status page: the violations of the last day and the kinds seen last. */
export async function cspReportSummary(db: DB) {
  const [count, recent] = await Promise.all([
    db
      .selectFrom('csp_reports')
      .select(sql<string>`coalesce(sum(count), 0)`.as('count'))
      .where('last_seen_at', '>', sql<Date>`now() - interval '1 day'`)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('csp_reports')
      .select(['id', 'received_at', 'last_seen_at', 'count', 'page', 'blocked_url', 'directive', 'disposition'])
      .orderBy('last_seen_at', 'desc')
      .orderBy('id', 'desc')
      .limit(RECENT_SHOWN)
      .execute(),
  ])
  return {
    lastDay: Number(count.count),
    recent: recent.map((row) => ({
      id: row.id,
      firstSeen: row.received_at,
      lastSeen: row.last_seen_at,
      count: row.count,
      page: row.page,
      blockedUrl: row.blocked_url,
      directive: row.directive,
      disposition: row.disposition,
    })),
  }
}
