import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { runMigrations } from 'graphile-worker'
import { FileMigrationProvider, Migrator } from 'kysely'
import type pg from 'pg'
import type { DB } from '#platform/db.server.ts'
import { graphileLogger } from '#platform/logger.server.ts'

const migrationFolder = fileURLToPath(new URL('../migrations', import.meta.url))

/** Brings the app's tables and graphile-worker's schema up to date. Safe to run on every start. */
export async function migrateToLatest(db: DB, pool: pg.Pool) {
  const migrator = new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder }),
  })
  const { error, results } = await migrator.migrateToLatest()
  for (const result of results ?? []) {
    if (result.status === 'Success') console.log(`[migrate] applied ${result.migrationName}`)
    if (result.status === 'Error') console.error(`[migrate] failed ${result.migrationName}`)
  }
  if (error) throw error
  await runMigrations({ pgPool: pool, logger: graphileLogger })
}
