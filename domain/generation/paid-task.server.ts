import { sql } from 'kysely'
import type { TaskKind, TaskSource } from '#platform/db-schema.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { executePrepared } from '#platform/prepared-queries.server.ts'
import { addJobCall, type GenerationJobName } from '#platform/jobs.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { balanceHold, withSpend } from '#domain/credits/credits.server.ts'
import {
  getSystemConfig,
  settingsFrom,
  systemConfigColumn,
  type SystemSettings,
} from '#domain/credits/system-config.server.ts'
import { HttpError } from '#domain/http-error.server.ts'

/**
 * A paid task, whatever made it (a generation with uploads, a re-roll, a likeness fix, "Make it
 * bigger"): the row, the debit and the job in one transaction. What differs between them comes in
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
  /** The price, read from the system config inside the paying transaction. */
  cost: (settings: SystemSettings, tx: Tx) => number | Promise<number>
  /** The ledger line, e.g. 'Image generation'; may depend on the price (a free likeness fix). */
  description: string | ((cost: number) => string)
  /** A re-roll's or a likeness fix's parent task and the paid run its family started with. */
  family?: { parentTaskId: string; rootTaskId: string }
  /** Runs in the paying transaction just before the payment (undone if it fails); may move the job up the queue. */
  beforeQueue?: (tx: Tx) => Promise<{ runAt?: Date }>
  /** How many versions the run makes (1 for videos); `cost` is the price of all of them. */
  variants?: number
  /** Params that depend on the prices read in the paying transaction (HD's refundable difference). */
  pricedParams?: (settings: SystemSettings) => Record<string, unknown>
}

/**
 * One transaction: the debit with its 'spend' ledger line, the task row and its job. Too few
 * credits: 402 with needPurchase; too many of the user's tasks queued or running: 429. Either way
 * nothing is written. It takes four round trips to the database (begin, the prices with the hold on
 * the user's row, the paid work in one statement, commit): created_at is the transaction's start,
 * and the worker can start the task only after the commit.
 */
export async function createPaidTask(db: DB, task: NewTask) {
  const created = await db.transaction().execute(async (tx) => {
    const [{ settings }] = await executePrepared(
      tx,
      tx.selectNoFrom([systemConfigColumn(tx).as('settings'), balanceHold(tx, task.userId).as('held')]),
    )
    const prices = settingsFrom(settings)
    const cost = await task.cost(prices, tx)
    const placement = (await task.beforeQueue?.(tx)) ?? {}
    const [paid] = await executePrepared(tx, payAndQueue(tx, task, { cost, settings: prices, runAt: placement.runAt }))
    if (!paid) throw tooFewCredits(cost, task.kind)
    if (Number(paid.othersActive) + 1 > getEnv().MAX_ACTIVE_TASKS_PER_USER) throw tooManyActive()
    return { taskId: task.id, cost, credits: paid.credits }
  })
  getMetrics().tasksSubmitted.inc({ kind: task.kind })
  return created
}

/**
 * The paid work in one statement (prepared: its text is the same for every task): the debit and its ledger line (withSpend), the task's row, its
 * job, and a count of the user's other tasks queued or running (fairness: one user's burst cannot
 * fill every worker's lanes). The user's row is held since the transaction's first statement, so
 * two submissions of the same user count one after the other. No row: too few credits.
 */
function payAndQueue(
  tx: Tx,
  task: NewTask,
  { cost, settings, runAt }: { cost: number; settings: SystemSettings; runAt?: Date },
) {
  const description = typeof task.description === 'string' ? task.description : task.description(cost)
  return withSpend(tx, { userId: task.userId, cost, description, taskId: task.id })
    .with('task', (db) =>
      db.insertInto('generation_tasks').values({
        id: task.id,
        user_id: task.userId,
        kind: task.kind,
        source: task.source,
        params: JSON.stringify({ ...task.params, ...task.pricedParams?.(settings) }),
        input_keys: task.inputKeys,
        credit_cost: cost,
        variants: task.variants ?? 1,
        provider: task.provider,
        result_key: null,
        error: null,
        started_at: null,
        finished_at: null,
        expires_at: null,
        parent_task_id: task.family?.parentTaskId ?? null,
        family_root_id: task.family?.rootTaskId ?? null,
      }),
    )
    .selectFrom('debit')
    .select([
      'credits',
      sql<number>`(${addJobCall(task.job, { taskId: task.id }, { jobKey: task.id, runAt })}).id`.as('jobId'),
      // The statement's snapshot does not hold the row it inserts: these are the others.
      activeTasks(tx, task.userId).as('othersActive'),
    ])
}

const tooFewCredits = (cost: number, kind: TaskKind) =>
  new HttpError(402, `You need at least ${cost} credits to generate ${kindNames[kind]}`, {
    extra: { needPurchase: true },
  })

/** How many of the user's tasks are queued or running. */
const activeTasks = (db: DB | Tx, userId: string) =>
  db
    .selectFrom('generation_tasks')
    .select((eb) => eb.fn.countAll<number>().as('active'))
    .where('user_id', '=', userId)
    .where('status', 'in', ['queued', 'processing'])

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
 * none of them. Only a reading: the paying transaction checks both again, which is what refuses
 * parallel submissions racing past this.
 */
export async function refuseUnpayable(
  db: DB,
  { userId, kind, cost }: { userId: string; kind: TaskKind; cost: (settings: SystemSettings) => number },
) {
  const [settings, user, { active }] = await Promise.all([
    getSystemConfig(db),
    db.selectFrom('users').select('credits').where('id', '=', userId).executeTakeFirst(),
    activeTasks(db, userId).executeTakeFirstOrThrow(),
  ])
  const price = cost(settings)
  if ((user?.credits ?? 0) < price) throw tooFewCredits(price, kind)
  if (Number(active) >= getEnv().MAX_ACTIVE_TASKS_PER_USER) throw tooManyActive()
}
