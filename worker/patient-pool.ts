import { setTimeout as sleep } from 'node:timers/promises'
import type pg from 'pg'
import { DatabasePool, type PoolConnectCallback } from '#platform/db.server.ts'
import { isDatabaseUnreachable, noteDatabaseUnreachable } from '#platform/database-outage.server.ts'

const MAX_WAIT_BETWEEN_TRIES_MS = 2_000

/**
 * The worker's pool: taking a connection while the database is unreachable waits (retrying every
 * ≤2 s) instead of failing, until the pool is closed. So a job that was running, graphile-worker's
 * job bookkeeping (complete or fail a job) and its polling for new jobs all pause during an outage
 * and carry on within ~2 s of its end: no job is taken meanwhile, and no result is thrown away
 * because its database write failed. Only the promise form waits: pg's own `pool.query` and
 * graphile-worker's LISTEN connection use the callback form and handle failures themselves. A full
 * pool is no outage: its error comes after the pool's own connection timeout, as in the web.
 */
export class PatientPool extends DatabasePool {
  override connect(): Promise<pg.PoolClient>
  override connect(callback: PoolConnectCallback): void
  override connect(callback?: PoolConnectCallback) {
    return callback ? super.connect(callback) : this.connectWhenReachable()
  }

  private async connectWhenReachable(): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await super.connect()
      } catch (error) {
        if (this.ending || !isDatabaseUnreachable(error)) throw error
        noteDatabaseUnreachable('worker pool', error)
        await sleep(Math.min(100 * 2 ** attempt, MAX_WAIT_BETWEEN_TRIES_MS))
      }
    }
  }
}
