import type { Kysely } from 'kysely'
import type { Database } from '#platform/db-schema.ts'

/**
 * The last key-and-model check of each configured provider, written by `npm run providers:check`
 * and the worker's start-up check, read by the operator's status page.
 */
export interface ProviderCheck {
  provider: string
  model: string
  ok: boolean
  detail: string
  checkedAt: Date
}

export async function recordProviderCheck(db: Kysely<Database>, check: Omit<ProviderCheck, 'checkedAt'>) {
  await db
    .insertInto('provider_checks')
    .values({ ...check, checked_at: new Date() })
    .onConflict((oc) => oc.column('provider').doUpdateSet({ ...check, checked_at: new Date() }))
    .execute()
}

export async function listProviderChecks(db: Kysely<Database>): Promise<ProviderCheck[]> {
  const rows = await db.selectFrom('provider_checks').selectAll().orderBy('provider').execute()
  return rows.map((row) => ({
    provider: row.provider,
    model: row.model,
    ok: row.ok,
    detail: row.detail,
    checkedAt: row.checked_at,
  }))
}
