import { Kysely, PostgresDialect, sql, type QueryCreator, type Transaction } from 'kysely'
import pg from 'pg'
import {
  isQueryTimeout,
  notePoolExhausted,
  observeQuery,
  reportPoolError,
  tagDatabaseError,
} from './database-outage.server.ts'
import type { Database } from './db-schema.ts'
import { EnvError, getEnv } from './env.server.ts'

// Answer bigint ids and counts as numbers (they stay far below 2^53 here).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))
// Calendar dates (the analytics rollups' days) stay YYYY-MM-DD text, never a Date in the local time zone.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value)

export type DB = Kysely<Database>
export type Tx = Transaction<Database>

/** The callback form of `pool.connect`, which pg's own `pool.query` and graphile-worker's LISTEN use. */
export type PoolConnectCallback = (
  error: Error | undefined,
  client: pg.PoolClient | undefined,
  release: (error?: unknown) => void,
) => void

/**
 * pg's client, every query error passing the outage rule (database-outage.server.ts) before its
 * caller sees it. Errors the client emits as events are the pool's 'error' listeners' (createPool).
 * A query the server did not answer within the pool's `queryTimeoutMs` leaves its connection
 * waiting for an answer that may never come (a stopped server, a partition): the connection is
 * closed at once, so the pool drops it instead of lending it out again.
 */
class DatabaseClient extends pg.Client {
  // One signature for pg's overloads: text or config, values, then a callback or a promise.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const name = typeof args[0] === 'string' ? statementNames.get(args[0]) : undefined
    if (name) args.splice(0, 2, { name, text: args[0], values: args[1] })
    const callback: unknown = args.at(-1)
    if (typeof callback === 'function') {
      args[args.length - 1] = (error: unknown, result: unknown) => {
        this.judge(error)
        callback(error, result)
      }
      return Reflect.apply(super.query, this, args)
    }
    const result: unknown = Reflect.apply(super.query, this, args)
    // A Submittable (a cursor; none is used here) is answered as it is and reports its own errors.
    if (!(result instanceof Promise)) return result
    return result.catch((error: unknown) => {
      this.judge(error)
      throw error
    })
  }

  private judge(error: unknown) {
    tagDatabaseError(error)
    // end() sets the client ending at once (the pool then removes it on release) and, with the
    // unanswered query still active, destroys the socket rather than waiting for a goodbye.
    if (isQueryTimeout(error)) this.end().catch(() => {})
  }
}

/** The statements run by name (preparedStatement): their text, and the name each connection knows it by. */
const statementNames = new Map<string, string>()

/**
 * Runs `text` as a named prepared statement from now on: each connection parses it once, and the
 * database may keep one plan for it rather than planning it on every run (for a query run on every
 * request, a plan can cost more than the answer). Its result must name its columns and hold no
 * table's whole row: the columns of a prepared `*` (or the type of a row) would change when a
 * migration adds a column, and the database then refuses to run it.
 */
export function preparedStatement(text: string) {
  if (/"\.\*|select \*/i.test(text)) throw new Error('A prepared statement must name its columns, not select *')
  if (!statementNames.has(text)) statementNames.set(text, `pawtrait_${statementNames.size + 1}`)
}

/** pg's pool, with what a failed connect means decided here: the database away (tagged), or the pool full (counted). */
export class DatabasePool extends pg.Pool {
  override connect(): Promise<pg.PoolClient>
  override connect(callback: PoolConnectCallback): void
  override connect(callback?: PoolConnectCallback) {
    if (callback) return super.connect((error, client, release) => callback(this.judged(error), client, release))
    return super.connect().catch((error: unknown) => {
      throw this.judged(error)
    })
  }

  private judged<E>(error: E): E {
    if (tagDatabaseError(error) === 'pool exhausted') notePoolExhausted(this)
    return error
  }
}

export interface PoolOptions {
  max?: number
  /** Names the connections in pg_stat_activity: pawtrait-web, pawtrait-worker, pawtrait-migrate. */
  applicationName?: string
  /** The worker's pool waits out an outage (worker/patient-pool.ts). */
  Pool?: typeof DatabasePool
  /**
   * How long a query may go unanswered before it fails as the database being unreachable (pg's
   * client-side `query_timeout`: a server-side statement_timeout cannot fire in a stopped server).
   * None by default (migrations may run long); the web and the worker set theirs.
   */
  queryTimeoutMs?: number
  /** How long taking a connection may wait, for a free one or a new one (pg-pool's one timeout). */
  connectTimeoutMs?: number
}

/** Connections a process opens at most, unless it asks for more (the worker: configureSharedPool). */
export const DEFAULT_POOL_SIZE = 10

export function createPool(
  connectionString: string,
  {
    max = DEFAULT_POOL_SIZE,
    applicationName,
    Pool = DatabasePool,
    queryTimeoutMs,
    connectTimeoutMs = 5_000,
  }: PoolOptions = {},
) {
  const pool = new Pool({
    connectionString,
    max,
    connectionTimeoutMillis: connectTimeoutMs,
    query_timeout: queryTimeoutMs,
    // A peer that vanished without a word (a partition) is found by TCP in time, not never.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: applicationName,
    Client: DatabaseClient,
  })
  // A client losing its connection (database restart) must not crash the process; an outage is logged once.
  pool.on('error', reportPoolError)
  pool.on('connect', (client) => client.on('error', reportPoolError))
  return pool
}

/**
 * A statement's step `INSERT INTO table (…) SELECT <row's values> FROM source`: the row is written
 * only when `source`, an earlier step of the same statement, has a row. The database types each
 * value by its column.
 */
export function insertWhenFrom<Steps extends Database, Table extends keyof Database>(
  qc: QueryCreator<Steps>,
  table: Table,
  row: Partial<Record<keyof Database[Table], unknown>>,
  source: string,
) {
  const columns = Object.keys(row)
  const db = qc as unknown as QueryCreator<Database>
  return db
    .insertInto(table)
    .columns(columns as never)
    .expression(
      db
        .selectFrom(sql.table(source).as('source'))
        .select((eb) => columns.map((column) => eb.val(row[column as keyof typeof row]).as(column))) as never,
    )
}

export function createDb(pool: pg.Pool): DB {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: observeQuery })
}

let shared: { pool: pg.Pool; db: DB } | undefined
let sharedPoolOptions: PoolOptions = {}

/** Call before first use: each process names its connections; the worker wants more of them, and its patient pool. */
export function configureSharedPool(options: PoolOptions) {
  sharedPoolOptions = options
}

/** The name this process's connections carry (configureSharedPool), for one it opens outside the pool. */
export function applicationName() {
  return sharedPoolOptions.applicationName
}

function connect() {
  const url = getEnv().DATABASE_URL
  if (!url) throw new EnvError('DATABASE_URL is not set (npm start provides an embedded database; elsewhere set it)')
  const pool = createPool(url, sharedPoolOptions)
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
