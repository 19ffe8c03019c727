import fs from 'node:fs'
import path from 'node:path'
import { freePort, startEmbeddedPostgres } from '../../scripts/embedded-postgres.ts'

/**
 * A PostgreSQL server of this test file's own (embedded), migrated, that the test may take away and
 * bring back on the same port without disturbing other test files. Call before anything reads the
 * environment: it points DATABASE_URL at itself.
 */
export async function startOwnDatabase(name: string) {
  const folder = path.resolve(`tests/.tmp/${name}-${process.pid}`)
  const port = await freePort()
  let server = await startEmbeddedPostgres(folder, name, port)
  let running = true
  process.env.DATABASE_URL = server.url
  process.env.SEED_DEMO_GALLERY = 'off'
  const { prepareDatabase } = await import('../../scripts/prepare-database.ts')
  await prepareDatabase()

  return {
    /**
     * PostgreSQL's immediate shutdown, as in a crash or a failover: the postmaster gets SIGQUIT,
     * every connection drops at once and no new one is accepted until `start`.
     */
    async kill() {
      running = false
      await server.crash()
    },
    /** Stops every PostgreSQL process (SIGSTOP): connections are accepted, nothing is answered. */
    freeze() {
      server.freeze()
    },
    /** Lets the frozen server run on (SIGCONT). */
    thaw() {
      server.thaw()
    },
    /** Brings it back after `kill` (no-op while it runs). */
    async start() {
      if (running) return
      server = await startEmbeddedPostgres(folder, name, port)
      running = true
    },
    async remove() {
      await server.stop()
      fs.rmSync(folder, { recursive: true, force: true })
    },
  }
}
