import type { TaskKind } from '#platform/db-schema.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { enqueueJob } from '#platform/jobs.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { HttpError } from '#app/utils/http.server.ts'
import { spendCredits } from '#app/features/credits/credits.server.ts'
import { getSystemConfig, type SystemSettings } from '#app/features/credits/system-config.server.ts'

/**
 * The paid submission of a generation task (images and videos alike): the row, the debit and the
 * job in one transaction. The worker then moves it (task-states.server.ts); routes read it
 * (user-tasks.server.ts).
 */

/** One try plus three retries with graphile-worker's exponential backoff (about 3 s, 7 s, 20 s). */
export const GENERATION_MAX_ATTEMPTS = 4

const jobFor = { image: 'generate_image', video: 'generate_video' } as const satisfies Record<TaskKind, string>
const kindNames: Record<TaskKind, string> = { image: 'an image', video: 'a video' }

export interface NewTask {
  /** Chosen by the caller, so uploads can be stored under the task before its row exists. */
  id: string
  userId: string
  kind: TaskKind
  source: 'generate' | 'template'
  params: Record<string, unknown>
  inputKeys: string[]
  provider: string
  /** The price, read from the system config inside the paying transaction. */
  cost: (settings: SystemSettings) => number
  /** The ledger line, e.g. 'Image generation'. */
  description: string
}

/**
 * One transaction: the task row, the debit with its 'spend' ledger line, and the job. Too few
 * credits: 402 with needPurchase; too many of the user's tasks queued or running: 429. Either way
 * nothing is written.
 */
export async function createPaidTask(db: DB, task: NewTask) {
  const created = await db.transaction().execute(async (tx) => {
    const cost = task.cost(await getSystemConfig(tx))
    await tx
      .insertInto('generation_tasks')
      .values({
        id: task.id,
        user_id: task.userId,
        kind: task.kind,
        source: task.source,
        params: JSON.stringify(task.params),
        input_keys: task.inputKeys,
        credit_cost: cost,
        provider: task.provider,
        result_key: null,
        error: null,
        started_at: null,
        finished_at: null,
        expires_at: null,
      })
      .execute()
    const paid = await spendCredits(tx, { userId: task.userId, cost, description: task.description, taskId: task.id })
    if (!paid) {
      throw new HttpError(402, `You need at least ${cost} credits to generate ${kindNames[task.kind]}`, {
        extra: { needPurchase: true },
      })
    }
    await refuseBeyondActiveLimit(tx, task.userId, getEnv().MAX_ACTIVE_TASKS_PER_USER)
    await enqueueJob(
      tx,
      jobFor[task.kind],
      { taskId: task.id },
      { maxAttempts: GENERATION_MAX_ATTEMPTS, jobKey: task.id },
    )
    const { credits } = await tx
      .selectFrom('users')
      .select('credits')
      .where('id', '=', task.userId)
      .executeTakeFirstOrThrow()
    return { taskId: task.id, cost, credits }
  })
  getMetrics().tasksSubmitted.inc({ kind: task.kind })
  return created
}

/**
 * Fairness: one user's burst cannot fill every worker's lanes. Called after the debit, whose UPDATE
 * locks the user's row: two submissions of the same user count one after the other, the new task
 * included. Throwing rolls the debit back.
 */
async function refuseBeyondActiveLimit(tx: Tx, userId: string, limit: number) {
  const { active } = await tx
    .selectFrom('generation_tasks')
    .select((eb) => eb.fn.countAll<number>().as('active'))
    .where('user_id', '=', userId)
    .where('status', 'in', ['queued', 'processing'])
    .executeTakeFirstOrThrow()
  if (Number(active) > limit) {
    throw new HttpError(
      429,
      `You already have ${limit} generations in progress. Please wait until one of them finishes.`,
    )
  }
}
