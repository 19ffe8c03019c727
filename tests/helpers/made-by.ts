import type { GenerationTask } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'

/** A task's row with who made its first version (task_versions): `madeBy` (the provider) and `model`. */
export async function withMaker(row: GenerationTask) {
  const version = await getDb()
    .selectFrom('task_versions')
    .select(['provider', 'model'])
    .where('task_id', '=', row.id)
    .orderBy('version_index')
    .executeTakeFirst()
  return { ...row, madeBy: version?.provider ?? null, model: version?.model ?? null }
}
