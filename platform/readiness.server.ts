import { sql } from 'kysely'
import { getDb } from './db.server.ts'
import { getLogger } from './logger.server.ts'
import { getStorage } from './storage.server.ts'

/** A key nobody writes: asking for it proves storage answers (and, on S3, that the credentials work). */
const PROBE_KEY = 'readyz/probe.png'

type Check = 'database' | 'storage'
export type Readiness = { ready: boolean; checks: Record<Check, 'ok' | 'failed'> }

/**
 * What /readyz answers (the web's, and the worker's on its metrics port): can this process reach
 * the database and media storage? Used by Fly's deploy check; /healthz stays the cheap one. The
 * answer is public, so the reasons go to the log only.
 */
export async function checkReadiness(): Promise<Readiness> {
  const [database, storage] = await Promise.all([
    run('database', sql`SELECT 1`.execute(getDb())),
    run('storage', getStorage().stat(PROBE_KEY)),
  ])
  return { ready: database === 'ok' && storage === 'ok', checks: { database, storage } }
}

/** A check that has not answered by then has failed: the worker's pool waits for the database (worker/patient-pool.ts). */
const CHECK_TIMEOUT_MS = 3_000

async function run(name: Check, check: Promise<unknown>): Promise<'ok' | 'failed'> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS)
  })
  try {
    await Promise.race([check, timeout])
    return 'ok'
  } catch (error) {
    getLogger().error(`readiness: the ${name} check failed: ${error instanceof Error ? error.message : error}`)
    return 'failed'
  } finally {
    clearTimeout(timer)
  }
}
