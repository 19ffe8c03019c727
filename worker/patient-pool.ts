import type pg from 'pg'
import { createPool } from '#platform/db.server.ts'
import { isDatabaseUnreachable, noteDatabaseUnreachable } from '#platform/database-outage.server.ts'

const MAX_WAIT_BETWEEN_TRIES_MS = 2_000

/**
 * The worker's pool: taking a connection while the database is unreachable waits (retrying every
 * ≤2 s) instead of failing, until the pool is closed. So a job that was running, graphile-worker's
 * job bookkeeping (complete or fail a job) and its polling for new jobs all pause during an outage
 * and carry on within ~2 s of its end: no job is taken meanwhile, and no result is thrown away
 * because its database write failed. Only the promise form waits: pg's own `pool.query` and
 * graphile-worker's LISTEN connection use the callback form and handle failures themselves.
 */
export function createPatientPool(connectionString: string, max?: number): pg.Pool {
  const pool = createPool(connectionString, max)
  const connectNow = pool.connect.bind(pool) as (callback?: unknown) => Promise<pg.PoolClient>
  async function connectWhenReachable(): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await connectNow()
      } catch (error) {
        if (pool.ending || !isDatabaseUnreachable(error)) throw error
        noteDatabaseUnreachable('worker pool', error)
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, MAX_WAIT_BETWEEN_TRIES_MS)))
      }
    }
  }
  pool.connect = ((callback?: unknown) =>
    callback ? connectNow(callback) : connectWhenReachable()) as typeof pool.connect
  return pool
}
