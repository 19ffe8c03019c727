import { Kysely, PostgresDialect, type Transaction } from 'kysely'
import pg from 'pg'
import { observeQuery, reportPoolError } from './database-outage.server.ts'
import type { Database } from './db-schema.ts'
import { EnvError, getEnv } from './env.server.ts'

// Answer bigint ids and counts as numbers (they stay far below 2^53 here).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))
// Calendar dates (the analytics rollups' days) stay YYYY-MM-DD text, never a Date in the local time zone.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value)

export type DB = Kysely<Database>
export type Tx = Transaction<Database>

export function createPool(connectionString: string, max = 10) {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 5_000 })
  // A client losing its connection (database restart) must not crash the process; an outage is logged once.
  pool.on('error', reportPoolError)
  pool.on('connect', (client) => client.on('error', reportPoolError))
  return pool
}

export function createDb(pool: pg.Pool): DB {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: observeQuery })
}

/** Connections a process opens at most, unless it asks for more (the worker: setSharedPoolSize). */
export const DEFAULT_POOL_SIZE = 10

let shared: { pool: pg.Pool; db: DB } | undefined
let sharedPoolSize = DEFAULT_POOL_SIZE
let sharedPoolFactory = createPool

/** The worker needs more connections than the web (each of its lanes listens on one); call before first use. */
export function setSharedPoolSize(max: number) {
  sharedPoolSize = max
}

/** The worker's pool waits for an unreachable database instead of failing (worker/patient-pool.ts). */
export function setSharedPoolFactory(factory: typeof createPool) {
  sharedPoolFactory = factory
}

function connect() {
  const url = getEnv().DATABASE_URL
  if (!url) throw new EnvError('DATABASE_URL is not set (npm start provides an embedded database; elsewhere set it)')
  const pool = sharedPoolFactory(url, sharedPoolSize)
  return { pool, db: createDb(pool) }
}

/** The process-wide database handle, opened on first use. */
export function getDb(): DB {
  shared ??= connect()
  return shared.db
}

export function getPool(): pg.Pool {
  shared ??= connect()
  return shared.pool
}

/** Resolves once a connection can be had (at once in the web; the worker's pool waits out an outage). */
export async function waitForDatabase() {
  const client = await getPool().connect()
  client.release()
}

export async function closeDb() {
  if (!shared) return
  const { db } = shared
  shared = undefined
  await db.destroy()
}
