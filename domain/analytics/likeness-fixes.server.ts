import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { LIKENESS_FIX_REASONS, type LikenessFixReason } from '#domain/generation/likeness-fix.ts'
import type { DateRange } from './date-range.ts'

/**
 * What users said was off when they asked for a likeness fix, per template (the generator's own
 * modes count as "No template") and per provider (the one that made the version they fixed), most
 * fixed first: which templates and which models miss the pet most. Read from
 * likeness_fix_reports, which outlive the tasks (decision 0030).
 */

export interface FixReasonGroup {
  /** The template's id or the provider's name; null for "No template". */
  key: string | null
  name: string
  fixes: number
  reasons: Array<{ reason: LikenessFixReason; label: string; count: number }>
}

export async function likenessFixReasons(db: DB, range: Pick<DateRange, 'start' | 'end'>) {
  const [byTemplate, byProvider] = await Promise.all([
    groupedReasons(db, range, 'template_id'),
    groupedReasons(db, range, 'provider'),
  ])
  return { byTemplate, byProvider }
}

export type LikenessFixReasons = Awaited<ReturnType<typeof likenessFixReasons>>

async function groupedReasons(db: DB, range: Pick<DateRange, 'start' | 'end'>, by: 'template_id' | 'provider') {
  const column = sql.ref(`r.${by}`)
  const { rows } = await sql<{ key: string | null; template_name: string | null; reason: string; count: number }>`
    SELECT ${column} AS key, t.name AS template_name, reason, count(*)::int AS count
    FROM likeness_fix_reports r
    CROSS JOIN LATERAL unnest(r.reasons) AS reason
    LEFT JOIN templates t ON t.id::text = r.template_id
    WHERE r.created_at >= ${range.start} AND r.created_at < ${range.end}
    GROUP BY 1, 2, reason
  `.execute(db)
  const { rows: fixes } = await sql<{ key: string | null; template_name: string | null; fixes: number }>`
    SELECT ${column} AS key, t.name AS template_name, count(*)::int AS fixes
    FROM likeness_fix_reports r
    LEFT JOIN templates t ON t.id::text = r.template_id
    WHERE r.created_at >= ${range.start} AND r.created_at < ${range.end}
    GROUP BY 1, 2
  `.execute(db)
  const nameOf = (row: { key: string | null; template_name: string | null }) => {
    if (by === 'provider') return row.key ?? 'Unknown'
    if (row.key === null) return 'No template'
    return row.template_name === null ? 'A deleted template' : row.template_name.trim() || 'Untitled'
  }
  const groups = new Map<string | null, FixReasonGroup>()
  for (const row of fixes) groups.set(row.key, { key: row.key, name: nameOf(row), fixes: row.fixes, reasons: [] })
  for (const row of rows) {
    const group = groups.get(row.key)
    if (!group || !(row.reason in LIKENESS_FIX_REASONS)) continue
    const reason = row.reason as LikenessFixReason
    const known = group.reasons.find((entry) => entry.reason === reason)
    if (known) known.count += row.count
    else group.reasons.push({ reason, label: LIKENESS_FIX_REASONS[reason], count: row.count })
  }
  const sorted = [...groups.values()].sort((a, b) => b.fixes - a.fixes)
  for (const group of sorted) group.reasons.sort((a, b) => b.count - a.count)
  return sorted
}
