/**
 * Metrics that describe the shared database rather than one process: the queue, running tasks,
 * the credits ledger and payment proofs. They are read at scrape time (a collect() callback), not
 * counted in memory, because every machine would only see its own share and lose it on restart;
 * the ledger is the record of money anyway. Only the web registers them, and every web machine
 * reports the same figures: aggregate them with max(), not sum() (docs/deploy.md).
 */
import { sql } from 'kysely'
import { Counter, Gauge, type Registry } from 'prom-client'
import { isDatabaseUnavailable } from '#platform/database-outage.server.ts'
import type { DB } from '#platform/db.server.ts'
import type { TaskKind } from '#platform/db-schema.ts'
import { providerLabel, type Metrics } from '#platform/metrics.server.ts'

const kinds: TaskKind[] = ['image', 'video']
const proofStatuses = ['pending', 'approved', 'rejected'] as const
const creditTypes = ['spent', 'refunded', 'purchased', 'granted', 'deducted'] as const

export function registerDatabaseMetrics({ registry }: Metrics, db: DB) {
  const registers = [registry]
  taskGauge(registers, db, 'pawtrait_queue_depth', 'Generation tasks waiting for a worker', 'queued')
  taskGauge(registers, db, 'pawtrait_tasks_running', 'Generation tasks a worker is running now', 'processing')
  new Counter({
    name: 'pawtrait_credits_total',
    help: 'Credits moved by the ledger since the start, by type (spent, refunded, purchased, granted, deducted)',
    labelNames: ['type'] as const,
    registers,
    async collect() {
      const totals = await unlessUnreachable(creditTotals(db))
      if (!totals) return
      // The ledger holds the running total: replace, then set it (after the query, so two
      // concurrent scrapes cannot add up).
      this.reset()
      for (const type of creditTypes) this.inc({ type }, totals[type])
    },
  })
  new Gauge({
    name: 'pawtrait_payment_proofs',
    help: 'Payment proofs by review status',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const rows = await unlessUnreachable(
        db
          .selectFrom('payment_proofs')
          .select(['status', (eb) => eb.fn.countAll<string>().as('count')])
          .groupBy('status')
          .execute(),
      )
      if (!rows) return
      const counts = new Map(rows.map((row) => [row.status, Number(row.count)]))
      for (const status of proofStatuses) this.set({ status }, counts.get(status) ?? 0)
    },
  })
  new Gauge({
    name: 'pawtrait_provider_breaker_state',
    help: "Each image provider's circuit breaker, shared by every worker: 0 closed, 1 half-open, 2 open",
    labelNames: ['provider'] as const,
    registers,
    async collect() {
      const rows = await unlessUnreachable(db.selectFrom('provider_breakers').select(['provider', 'state']).execute())
      if (!rows) return
      this.reset()
      for (const row of rows) this.set({ provider: providerLabel(row.provider) }, breakerStates[row.state])
    },
  })
}

const breakerStates = { closed: 0, half_open: 1, open: 2 } as const

/**
 * The read's answer, or null while the database is unreachable or the pool full: the figure keeps
 * its last value and the scrape still succeeds (with `pawtrait_database_unreachable` 1, or
 * `pawtrait_database_pool_exhausted_total` counting), rather than failing whole.
 */
async function unlessUnreachable<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read
  } catch (error) {
    if (isDatabaseUnavailable(error)) return null
    throw error
  }
}

function taskGauge(registers: Registry[], db: DB, name: string, help: string, status: 'queued' | 'processing') {
  new Gauge({
    name,
    help,
    labelNames: ['kind'] as const,
    registers,
    async collect() {
      const counts = await unlessUnreachable(countTasks(db, status))
      if (!counts) return
      for (const kind of kinds) this.set({ kind }, counts.get(kind) ?? 0)
    },
  })
}

async function countTasks(db: DB, status: 'queued' | 'processing') {
  const rows = await db
    .selectFrom('generation_tasks')
    .select(['kind', (eb) => eb.fn.countAll<string>().as('count')])
    .where('status', '=', status)
    .groupBy('kind')
    .execute()
  return new Map(rows.map((row) => [row.kind, Number(row.count)]))
}

/** Refunds are 'earn' lines of a task; other 'earn' lines are sign-up grants; adjustments go both ways. */
async function creditTotals(db: DB): Promise<Record<(typeof creditTypes)[number], number>> {
  const row = await db
    .selectFrom('credit_transactions')
    .select([
      sql<string>`coalesce(sum(-amount) FILTER (WHERE type = 'spend'), 0)`.as('spent'),
      sql<string>`coalesce(sum(amount) FILTER (WHERE type = 'earn' AND task_id IS NOT NULL), 0)`.as('refunded'),
      sql<string>`coalesce(sum(amount) FILTER (WHERE type = 'purchase'), 0)`.as('purchased'),
      sql<string>`coalesce(sum(amount) FILTER (
        WHERE (type = 'earn' AND task_id IS NULL) OR (type = 'adjustment' AND amount > 0)), 0)`.as('granted'),
      sql<string>`coalesce(sum(-amount) FILTER (WHERE type = 'adjustment' AND amount < 0), 0)`.as('deducted'),
    ])
    .executeTakeFirstOrThrow()
  return {
    spent: Number(row.spent),
    refunded: Number(row.refunded),
    purchased: Number(row.purchased),
    granted: Number(row.granted),
    deducted: Number(row.deducted),
  }
}
