import type { TaskKind, TaskSource } from '#platform/db-schema.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { enqueueJob, type GenerationJobName } from '#platform/jobs.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { spendCredits } from '#domain/credits/credits.server.ts'
import { getSystemConfig, type SystemSettings } from '#domain/credits/system-config.server.ts'
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
  /** Runs in the transaction once the task is paid for; may move its job up the queue. */
  beforeQueue?: (tx: Tx) => Promise<{ runAt?: Date }>
  /** How many versions the run makes (1 for videos); `cost` is the price of all of them. */
  variants?: number
  /** Params that depend on the prices read in the paying transaction (HD's refundable difference). */
  pricedParams?: (settings: SystemSettings) => Record<string, unknown>
}

/**
 * One transaction: the task row, the debit with its 'spend' ledger line, and the job. Too few
 * credits: 402 with needPurchase; too many of the user's tasks queued or running: 429. Either way
 * nothing is written.
 */
export async function createPaidTask(db: DB, task: NewTask) {
  const created = await db.transaction().execute(async (tx) => {
    const settings = await getSystemConfig(tx)
    const cost = await task.cost(settings, tx)
    await tx
      .insertInto('generation_tasks')
      .values({
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
      })
      .execute()
    const description = typeof task.description === 'string' ? task.description : task.description(cost)
    const paid = await spendCredits(tx, { userId: task.userId, cost, description, taskId: task.id })
    if (!paid) throw tooFewCredits(cost, task.kind)
    await refuseBeyondActiveLimit(tx, task.userId)
    const placement = (await task.beforeQueue?.(tx)) ?? {}
    await enqueueJob(tx, task.job, { taskId: task.id }, { jobKey: task.id, runAt: placement.runAt })
    return { taskId: task.id, cost, credits: paid.credits }
  })
  getMetrics().tasksSubmitted.inc({ kind: task.kind })
  return created
}

const tooFewCredits = (cost: number, kind: TaskKind) =>
  new HttpError(402, `You need at least ${cost} credits to generate ${kindNames[kind]}`, {
    extra: { needPurchase: true },
  })

const activeTaskCount = async (db: DB | Tx, userId: string) => {
  const { active } = await db
    .selectFrom('generation_tasks')
    .select((eb) => eb.fn.countAll<number>().as('active'))
    .where('user_id', '=', userId)
    .where('status', 'in', ['queued', 'processing'])
    .executeTakeFirstOrThrow()
  return Number(active)
}

function tooManyActive() {
  const limit = getEnv().MAX_ACTIVE_TASKS_PER_USER
  return new HttpError(
    429,
    `You already have ${limit} generations in progress. Please wait until one of them finishes.`,
  )
}

/**
 * Fairness: one user's burst cannot fill every worker's lanes. Called after the debit, whose UPDATE
 * locks the user's row: two submissions of the same user count one after the other, the new task
 * included. Throwing rolls the debit back.
 */
async function refuseBeyondActiveLimit(tx: Tx, userId: string) {
  if ((await activeTaskCount(tx, userId)) > getEnv().MAX_ACTIVE_TASKS_PER_USER) throw tooManyActive()
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
  const [settings, user, active] = await Promise.all([
    getSystemConfig(db),
    db.selectFrom('users').select('credits').where('id', '=', userId).executeTakeFirst(),
    activeTaskCount(db, userId),
  ])
  const price = cost(settings)
  if ((user?.credits ?? 0) < price) throw tooFewCredits(price, kind)
  if (active >= getEnv().MAX_ACTIVE_TASKS_PER_USER) throw tooManyActive()
}
