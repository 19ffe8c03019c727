import { sql } from 'kysely'
import { getDb, getPool } from '#platform/db.server.ts'
import { startNodeProcess } from '#tests/helpers/node-process.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

/** Each process names its connections, so pg_stat_activity tells them apart (web: web-process.test.ts). */
const namesOnThisDatabase = async () => {
  const { rows } = await sql<{ application_name: string }>`
    SELECT application_name FROM pg_stat_activity WHERE datname = current_database()`.execute(getDb())
  return rows.map((row) => row.application_name)
}

test('the worker’s connections are pawtrait-worker', async () => {
  const worker = startWorker()
  try {
    await worker.ready()
    const names = await namesOnThisDatabase()
    // One listening connection a lane at least.
    expect(names.filter((name) => name === 'pawtrait-worker').length).toBeGreaterThanOrEqual(3)
  } finally {
    await worker.stop()
  }
})

test('the migration’s connections are pawtrait-migrate', async () => {
  // Held until the migration has been seen waiting for it.
  const lock = await getPool().connect()
  await lock.query('BEGIN')
  await lock.query('LOCK TABLE kysely_migration_lock IN ACCESS EXCLUSIVE MODE')
  const migrate = startNodeProcess('scripts/migrate.ts', { SEED_DEMO_GALLERY: 'off' })
  try {
    await waitFor(async () => (await namesOnThisDatabase()).includes('pawtrait-migrate'), { timeout: 20_000 })
  } finally {
    await lock.query('ROLLBACK')
    lock.release()
  }
  expect(await migrate.exited, migrate.output.join('')).toBe(0)
})
