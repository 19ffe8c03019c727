import { sql } from 'kysely'
import type { TaskKind, TaskSource } from '#platform/db-schema.ts'
import { insertWhenFrom, type DB, type Tx } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { executePrepared } from '#platform/prepared-queries.server.ts'
import { addJobCall, type GenerationJobName } from '#platform/jobs.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { withSpend } from '#domain/credits/credits.server.ts'
import {
  getSystemConfig,
  rememberedSettings,
  rememberSettings,
  settingsUnchanged,
  systemConfigColumn,
  type RememberedSettings,
  type SystemSettings,
} from '#domain/credits/system-config.server.ts'
import { HttpError } from '#domain/http-error.server.ts'

/**
 * A paid task, whatever made it (a generation with uploads, a re-roll, a likeness fix, "Make it
 * bigger"): the row, the debit and the job in one statement. What differs between them comes in
 * as data (`NewTask`): the job, the price, the inputs. The worker then moves the task
 * (task-states.server.ts); routes read it (user-tasks.server.ts).
 */

const kindNames: Record<TaskKind, string> = { image: 'an image', video: 'a video' }

export interface NewTask {
  /** Chosen by the caller, so uploads can be stored under the task before its row exists. */
  id: string
  userId: string
  kind: TaskKind
  source: TaskSource
  /** The worker's job that makes it. */
  job: GenerationJobName
  params: Record<string, unknown>
  inputKeys: string[]
  provider: string
  /** The price by the settings the payment finds current. */
  cost: (settings: SystemSettings) => number
  /** The ledger line, e.g. 'Image generation'; may depend on the price (a free likeness fix). */
  description: string | ((cost: number) => string)
  /** A re-roll's or a likeness fix's parent task and the paid run its family started with. */
  family?: { parentTaskId: string; rootTaskId: string }
  /**
   * Work of its own the payment needs (a re-roll's or fix's family): run first, in one transaction
   * with the payment, which undoes it when the payment is refused. It may make the task free (a
   * likeness fix the run includes) or move its job up the queue.
   */
  before?: (tx: Tx, settings: SystemSettings) => Promise<{ free?: boolean; runAt?: Date }>
  /** How many versions the run makes (1 for videos); `cost` is the price of all of them. */
  variants?: number
  /** Params that depend on the prices of the payment (HD's refundable difference). */
  pricedParams?: (settings: SystemSettings) => Record<string, unknown>
}

/** A payment tried this many times at most while a superadmin changes the prices under it. */
const PAYMENT_ATTEMPTS = 3

/**
 * The debit with its 'spend' ledger line, the task row and its job, all or nothing, in one
 * statement (pay), inside a transaction only for a task with work `before` it. Too few credits:
 * 402 with needPurchase; too many of the user's tasks queued or running: 429. Either way nothing is
 * written. created_at is the start of that statement (or transaction): the worker can start the
 * task once it commits.
 */
export async function createPaidTask(db: DB, task: NewTask) {
  for (let attempt = 1; ; attempt++) {
    const prices = await rememberedSettings(db)
    const before = task.before
    try {
      const created = before
        ? await db.transaction().execute(async (tx) => pay(tx, task, prices, await before(tx, prices.settings)))
        : await pay(db, task, prices)
      getMetrics().tasksSubmitted.inc({ kind: task.kind })
      return created
    } catch (error) {
      // The prices changed since this process last read them: again, by the current ones.
      if (!(error instanceof PricesChanged) || attempt === PAYMENT_ATTEMPTS) throw error
    }
  }
}

class PricesChanged extends HttpError {
  constructor() {
    super(409, 'The prices changed while you were paying; please try again')
  }
}

/**
 * One statement, prepared (its text is the same for every task): the debit and its ledger line
 * (withSpend), the task's row and its job, each written only when the debit is. The debit also
 * asks that the prices are those remembered, and fairness, that the user has fewer than
 * MAX_ACTIVE_TASKS_PER_USER tasks queued or running (one user's burst cannot fill every worker's
 * lanes). active_tasks_of counts with a snapshot of its own, and runs again should a concurrent
 * payment of the same user change the row first: two submissions of the same user count one after
 * the other.
 */
async function pay(
  db: DB | Tx,
  task: NewTask,
  prices: RememberedSettings,
  { free = false, runAt }: { free?: boolean; runAt?: Date } = {},
) {
  const cost = free ? 0 : task.cost(prices.settings)
  const description = typeof task.description === 'string' ? task.description : task.description(cost)
  const allowed = sql<boolean>`active_tasks_of(users.id) < ${getEnv().MAX_ACTIVE_TASKS_PER_USER} AND ${settingsUnchanged(prices.json)}`
  const [outcome] = await executePrepared(
    db,
    withSpend(db, { userId: task.userId, cost, description, taskId: task.id }, allowed)
      .with('task', (qc) => insertWhenFrom(qc, 'generation_tasks', taskRow(task, cost, prices.settings), 'debit'))
      .selectNoFrom((eb) => [
        eb.selectFrom('debit').select('credits').as('credits'),
        eb
          .selectFrom('debit')
          .select(sql<number>`(${addJobCall(task.job, { taskId: task.id }, { jobKey: task.id, runAt })}).id`.as('id'))
          .as('jobId'),
        // Why not, when the debit was refused.
        systemConfigColumn(db).as('settings'),
        settingsUnchanged(prices.json).as('pricesCurrent'),
        eb.selectFrom('users').select('credits').where('id', '=', task.userId).as('balance'),
      ]),
  )
  if (outcome.credits !== null) return { taskId: task.id, cost, credits: outcome.credits }
  if (!outcome.pricesCurrent) {
    rememberSettings(outcome.settings)
    throw new PricesChanged()
  }
  if ((outcome.balance ?? 0) < cost) throw tooFewCredits(cost, task.kind)
  throw tooManyActive()
}

/** The task's row as the payment writes it. */
const taskRow = (task: NewTask, cost: number, settings: SystemSettings) => ({
  id: task.id,
  user_id: task.userId,
  kind: task.kind,
  source: task.source,
  params: JSON.stringify({ ...task.params, ...task.pricedParams?.(settings) }),
  input_keys: task.inputKeys,
  credit_cost: cost,
  variants: task.variants ?? 1,
  provider: task.provider,
  parent_task_id: task.family?.parentTaskId ?? null,
  family_root_id: task.family?.rootTaskId ?? null,
})

const tooFewCredits = (cost: number, kind: TaskKind) =>
  new HttpError(402, `You need at least ${cost} credits to generate ${kindNames[kind]}`, {
    extra: { needPurchase: true },
  })

function tooManyActive() {
  const limit = getEnv().MAX_ACTIVE_TASKS_PER_USER
  return new HttpError(
    429,
    `You already have ${limit} generations in progress. Please wait until one of them finishes.`,
  )
}

/**
 * The same two refusals (402, then 429) read before a submission's paid outside calls (the photo
 * check's vision call, moderation), so a user who cannot pay, or has too many tasks running, costs
 * none of them. Only a reading: the paying statement checks both again, which is what refuses
 * parallel submissions racing past this.
 */
export async function refuseUnpayable(
  db: DB,
  { userId, kind, cost }: { userId: string; kind: TaskKind; cost: (settings: SystemSettings) => number },
) {
  const [settings, user] = await Promise.all([
    getSystemConfig(db),
    // The paying statement's own count (active_tasks_of), so the two readings cannot drift apart.
    db
      .selectFrom('users')
      .select(['credits', sql<number>`active_tasks_of(users.id)`.as('active')])
      .where('id', '=', userId)
      .executeTakeFirst(),
  ])
  const price = cost(settings)
  if ((user?.credits ?? 0) < price) throw tooFewCredits(price, kind)
  if ((user?.active ?? 0) >= getEnv().MAX_ACTIVE_TASKS_PER_USER) throw tooManyActive()
}
