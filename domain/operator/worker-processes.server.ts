import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'

/**
 * The worker processes' own heartbeat (worker/health-reporting.ts writes it), read by the status page:
 * which workers were alive in the last minute, on which machine, running which build.
 */
export interface WorkerProcess {
  id: string
  hostname: string
  pid: number
  version: string
  concurrency: number
  startedAt: Date
  seenAt: Date
}

/** Rows of workers gone for a day are dropped on the way, so the table stays small. */
export async function recordWorkerAlive(db: DB, worker: Omit<WorkerProcess, 'startedAt' | 'seenAt'>) {
  const now = new Date()
  await db
    .insertInto('worker_processes')
    .values({ ...worker, seen_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ seen_at: now }))
    .execute()
  await db
    .deleteFrom('worker_processes')
    .where('seen_at', '<', sql<Date>`now() - interval '1 day'`)
    .execute()
}

export async function removeWorker(db: DB, id: string) {
  await db.deleteFrom('worker_processes').where('id', '=', id).execute()
}

export async function listLiveWorkers(db: DB, withinSeconds = 60): Promise<WorkerProcess[]> {
  const rows = await db
    .selectFrom('worker_processes')
    .selectAll()
    .where('seen_at', '>', sql<Date>`now() - make_interval(secs => ${withinSeconds})`)
    .orderBy('started_at')
    .execute()
  return rows.map((row) => ({
    id: row.id,
    hostname: row.hostname,
    pid: row.pid,
    version: row.version,
    concurrency: row.concurrency,
    startedAt: row.started_at,
    seenAt: row.seen_at,
  }))
}
