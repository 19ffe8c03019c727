import { seedDemoGallery } from '#app/models/gallery-seed.server.ts'
import { ensureAdmin, seedDefaults } from '#app/models/seed.server.ts'
import { closeDb, getDb, getPool } from './db.server.ts'
import { getEnv } from './env.server.ts'
import { migrateToLatest } from './migrate.server.ts'
import { getStorage } from './storage.server.ts'

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
