import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, inject } from 'vitest'

/**
 * Before each test file: a fresh database copied from the migrated template, exported as
 * DATABASE_URL before any app module reads the environment.
 */
const serverUrl = inject('databaseServerUrl')
const name = `pawtrait_test_${randomBytes(6).toString('hex')}`

const admin = new pg.Client({ connectionString: `${serverUrl}/postgres` })
await admin.connect()
await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('templateDatabase')}`)
await admin.end()

process.env.DATABASE_URL = `${serverUrl}/${name}`
process.env.NODE_ENV = 'test'
process.env.DATA_DIR ??= `${process.cwd()}/tests/.tmp/data`
// Test files run side by side: no fixed metrics ports (a test that wants one passes a free port).
process.env.METRICS_PORT ??= '0'
process.env.WORKER_METRICS_PORT ??= '0'
// A test that revokes a session in SQL reads at once, before the notice can reach the cache; the
// session cache's own test turns it on (tests/integration/session-cache.test.ts).
process.env.SESSION_CACHE_MS ??= '0'

afterAll(async () => {
  // Analytics events are written in batches: store the last ones before the database goes away.
  const { flushAnalytics } = await import('#domain/analytics/events.server.ts')
  await flushAnalytics()
  const { closeDb } = await import('#platform/db.server.ts')
  await closeDb()
  const cleanup = new pg.Client({ connectionString: `${serverUrl}/postgres` })
  await cleanup.connect()
  await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await cleanup.end()
})
