import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { LIKENESS_FIX_REASONS, type LikenessFixReason } from '#domain/generation/likeness-fix.ts'
import type { DateRange } from './date-range.ts'

/**
 * What users said was off when they asked for a likeness fix, per template (the generator's own
 * modes count as "No template"), most-fixed first: which templates miss the pet most. Read from
 * likeness_fix_reports, which outlive the tasks. A per-provider split waits for each version to
 * record its provider (decision 0030); the reports already keep the provider of the fixed task.
 */

export interface TemplateFixReasons {
  templateId: string | null
  templateName: string
  fixes: number
  reasons: Array<{ reason: LikenessFixReason; label: string; count: number }>
}

export async function likenessFixReasonsByTemplate(db: DB, range: Pick<DateRange, 'start' | 'end'>) {
  const { rows } = await sql<{
    template_id: string | null
    template_name: string | null
    reason: string
    count: number
  }>`
    SELECT r.template_id, t.name AS template_name, reason, count(*)::int AS count
    FROM likeness_fix_reports r
    CROSS JOIN LATERAL unnest(r.reasons) AS reason
    LEFT JOIN templates t ON t.id::text = r.template_id
    WHERE r.created_at >= ${range.start} AND r.created_at < ${range.end}
    GROUP BY r.template_id, t.name, reason
  `.execute(db)
  const fixes = await db
    .selectFrom('likeness_fix_reports')
    .select(['template_id', (eb) => eb.fn.countAll<number>().as('fixes')])
    .where('created_at', '>=', range.start)
    .where('created_at', '<', range.end)
    .groupBy('template_id')
    .execute()
  const templates = new Map<string | null, TemplateFixReasons>()
  for (const row of fixes) {
    templates.set(row.template_id, {
      templateId: row.template_id,
      templateName: 'No template',
      fixes: Number(row.fixes),
      reasons: [],
    })
  }
  for (const row of rows) {
    const entry = templates.get(row.template_id)
    if (!entry || !(row.reason in LIKENESS_FIX_REASONS)) continue
    const reason = row.reason as LikenessFixReason
    if (row.template_id) {
      entry.templateName = row.template_name === null ? 'A deleted template' : row.template_name.trim() || 'Untitled'
    }
    entry.reasons.push({ reason, label: LIKENESS_FIX_REASONS[reason], count: row.count })
  }
  const sorted = [...templates.values()].sort((a, b) => b.fixes - a.fixes)
  for (const entry of sorted) entry.reasons.sort((a, b) => b.count - a.count)
  return sorted
}
