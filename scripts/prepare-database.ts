import { seedDemoGallery } from './seed/demo-gallery.ts'
import { ensureAdmin, seedDefaults } from './seed/defaults.ts'
import { closeDb, getDb, getPool } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { migrateToLatest } from './migrate-to-latest.ts'
import { getStorage } from '#platform/storage.server.ts'

/** Migrations, default data and the configured superadmin: what every deployment runs before serving. */
export async function prepareDatabase() {
  const env = getEnv()
  try {
    await migrateToLatest(getDb(), getPool())
    await seedDefaults(getDb())
    await ensureAdmin(getDb(), env)
    if (env.SEED_DEMO_GALLERY === 'on') await seedDemoGallery(getDb(), getStorage())
  } finally {
    await closeDb()
  }
}
