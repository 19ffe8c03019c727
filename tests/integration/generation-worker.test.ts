import { sql } from 'kysely'
import sharp from 'sharp'
import { grantCredits } from '#domain/credits/credits.server.ts'
import { recoverStalledTasks, UNFINISHED_REASON } from '#domain/generation/task-recovery.server.ts'
import { completeTask, expireTasks, failTask, startTaskAttempt } from '#domain/generation/task-states.server.ts'
import { getDb } from '#platform/db.server.ts'
import { createInstantImageProvider } from '#worker/providers/instant.ts'
import { ProviderError, type ImageProvider, type ImageRequest } from '#worker/providers/types.ts'
import { imageGeneration } from '#worker/jobs/generate-image.ts'
import { runGeneration } from '#worker/generation/run-generation.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import {
  petPhoto,
  photoFile,
  submitGeneration,
  withOwnDataDir,
  taskRow,
  creditsOf,
  refundsOf,
} from '#tests/helpers/generation.ts'
import { jobHelpers } from '#tests/helpers/jobs.ts'

const media = withOwnDataDir()
const db = getDb()

async function newTask(credits = 10, fields: Record<string, string> = {}) {
  const { user, token } = await createTestUser({ credits })
  const { body } = await submitGeneration(token, [photoFile(await petPhoto())], fields)
  return { user, taskId: body.taskId as string }
}

/** A provider that renders the photo as a PNG and counts its calls; `whileRendering` runs during each. */
function countingProvider(whileRendering = async () => {}): ImageProvider & { calls: number } {
  return {
    name: 'counting',
    requestPerVersion: false,
    calls: 0,
    async generate(request) {
      this.calls++
      await whileRendering()
      return { images: [{ bytes: await sharp(request.images[0].bytes).png().toBuffer(), mimeType: 'image/png' }] }
    },
  }
}

const storedResults = (taskId: string) => media.taskFiles().filter((file) => file.startsWith(`tasks/${taskId}/result`))

function failingProvider(error: Error): ImageProvider {
  return {
    name: 'failing',
    requestPerVersion: false,
    async generate() {
      throw error
    },
  }
}

describe('the generate_image job', () => {
  test('runs the provider with the built prompt, writes progress, stores the result and completes', async () => {
    const { taskId } = await newTask(10, { personification: 'yes', clothingTop: 'a tuxedo', clothingShoes: 'boots' })
    const seen: { request?: ImageRequest; progressDuringRun?: number } = {}
    const provider: ImageProvider = {
      name: 'recording',
      requestPerVersion: false,
      async generate(request, context) {
        seen.request = request
        await context.onProgress(40)
        seen.progressDuringRun = (await taskRow(taskId)).progress
        return { images: [{ bytes: await sharp(request.images[0].bytes).png().toBuffer(), mimeType: 'image/png' }] }
      },
    }
    await runGeneration({ taskId }, jobHelpers(1), imageGeneration(provider))

    expect(seen.request?.images).toHaveLength(1)
    expect(seen.request?.images[0].mimeType).toBe('image/jpeg')
    expect(seen.request?.prompt).toContain('a tuxedo on top')
    expect(seen.request?.prompt).toContain('boots on its feet')
    expect(seen.request?.guided?.personification).toBe('yes')
    expect(seen.progressDuringRun).toBe(40)

    const done = await taskRow(taskId)
    expect(done).toMatchObject({ status: 'completed', progress: 100, attempts: 1, provider: 'recording', error: null })
    expect(done.result_key).toBe(`tasks/${taskId}/result.png`)
    expect(media.taskFiles()).toContain(done.result_key)
    const days = (done.expires_at!.getTime() - done.finished_at!.getTime()) / 86_400_000
    expect(days).toBeCloseTo(10, 3)
  })

  test('a retryable error before the last attempt puts the task back in the queue and rethrows', async () => {
    const { user, taskId } = await newTask()
    const error = new ProviderError('OpenAI is temporarily unavailable (HTTP 503).', { retryable: true, status: 503 })
    await expect(runGeneration({ taskId }, jobHelpers(1), imageGeneration(failingProvider(error)))).rejects.toBe(error)
    expect(await taskRow(taskId)).toMatchObject({ status: 'queued', progress: 0, attempts: 1 })
    expect(await refundsOf(taskId)).toEqual([])
    expect(await creditsOf(user.id)).toBe(8)
  })

  test('a retryable error on the last attempt fails the task and refunds it', async () => {
    const { user, taskId } = await newTask()
    const error = new ProviderError('Gemini did not answer within 120 s.', { retryable: true })
    await runGeneration({ taskId }, jobHelpers(4), imageGeneration(failingProvider(error)))
    expect(await taskRow(taskId)).toMatchObject({ status: 'failed', error: 'Gemini did not answer within 120 s.' })
    expect(await refundsOf(taskId)).toMatchObject([
      { amount: 2, description: 'Refunded: the provider failed to make this picture' },
    ])
    expect(await creditsOf(user.id)).toBe(10)
  })

  test('a refusal fails at once with its readable reason; an unexpected error is retried', async () => {
    const refused = await newTask()
    const refusal = new ProviderError('OpenAI declined to create this image because of its content rules.', {
      retryable: false,
    })
    await runGeneration({ taskId: refused.taskId }, jobHelpers(1), imageGeneration(failingProvider(refusal)))
    expect(await taskRow(refused.taskId)).toMatchObject({ status: 'failed', error: refusal.message })
    expect(await creditsOf(refused.user.id)).toBe(10)

    const crashed = await newTask()
    const bug = new Error('connection reset')
    await expect(
      runGeneration({ taskId: crashed.taskId }, jobHelpers(2), imageGeneration(failingProvider(bug))),
    ).rejects.toBe(bug)
    await runGeneration({ taskId: crashed.taskId }, jobHelpers(4), imageGeneration(failingProvider(bug)))
    // Internals stay in the log; the user reads a plain sentence.
    expect(await taskRow(crashed.taskId)).toMatchObject({
      status: 'failed',
      error: 'Something went wrong while generating. Please try again.',
    })
  })

  test('a deleted or finished task is left alone', async () => {
    const { taskId } = await newTask()
    await runGeneration({ taskId }, jobHelpers(1), imageGeneration(createInstantImageProvider(0)))
    const done = await taskRow(taskId)
    await runGeneration({ taskId }, jobHelpers(2), imageGeneration(failingProvider(new Error('must not run'))))
    expect(await taskRow(taskId)).toEqual(done)
  })

  test('a missing upload is a final failure, refunded', async () => {
    const { user, taskId } = await newTask()
    await db
      .updateTable('generation_tasks')
      .set({ input_keys: ['tasks/gone/2026/01/' + 'a'.repeat(64) + '.jpg'] })
      .where('id', '=', taskId)
      .execute()
    await runGeneration({ taskId }, jobHelpers(1), imageGeneration(createInstantImageProvider(0)))
    expect(await taskRow(taskId)).toMatchObject({
      status: 'failed',
      error: 'The uploaded photo is no longer available.',
    })
    expect(await creditsOf(user.id)).toBe(10)
  })
})

describe('refunds happen exactly once', () => {
  test('failing a task twice, one after the other or at the same time, refunds once', async () => {
    const { user, taskId } = await newTask()
    const fail = () => db.transaction().execute((tx) => failTask(tx, taskId, 'boom'))
    const results = await Promise.all([fail(), fail(), fail()])
    expect(results.filter(Boolean)).toHaveLength(1)
    expect(await fail()).toBe(false)
    expect(await refundsOf(taskId)).toHaveLength(1)
    expect(await creditsOf(user.id)).toBe(10)
  })

  test('the ledger itself refuses a second refund for the same task', async () => {
    const { user, taskId } = await newTask()
    const refund = () =>
      db
        .transaction()
        .execute((tx) => grantCredits(tx, { userId: user.id, type: 'earn', amount: 2, description: 'x', taskId }))
    await refund()
    await expect(refund()).rejects.toThrow(/credit_transactions_refund_once/)
    expect(await creditsOf(user.id)).toBe(10)
  })

  test('a second run of the same task finishing later keeps the result the first one delivered', async () => {
    const { taskId } = await newTask()
    const sameBytes = async (request: ImageRequest) => ({
      images: [{ bytes: await sharp(request.images[0].bytes).png().toBuffer(), mimeType: 'image/png' }],
    })
    // The slower run (as after a stall recovery that unlocked a live job): while it renders, another
    // run of the job completes the task with the very same bytes, under the task's one result key.
    const slowRun: ImageProvider = {
      name: 'slow',
      requestPerVersion: false,
      async generate(request) {
        await runGeneration(
          { taskId },
          jobHelpers(2),
          imageGeneration({ name: 'fast', requestPerVersion: false, generate: sameBytes }),
        )
        return sameBytes(request)
      },
    }
    await runGeneration({ taskId }, jobHelpers(1), imageGeneration(slowRun))
    const done = await taskRow(taskId)
    expect(done.status).toBe('completed')
    expect(media.taskFiles()).toContain(done.result_key)
  })

  test('a result an earlier attempt received is used by the next attempt, and the provider is not paid again', async () => {
    const { user, taskId } = await newTask()
    const counting = countingProvider()
    await runGeneration({ taskId }, jobHelpers(1), imageGeneration(counting))
    const first = await taskRow(taskId)
    // As if the database had gone away before the completion was written: the task is to run again.
    await db
      .updateTable('generation_tasks')
      .set({ status: 'queued', result_key: null, progress: 0 })
      .where('id', '=', taskId)
      .execute()
    await runGeneration({ taskId }, jobHelpers(2), imageGeneration(counting))

    expect(counting.calls).toBe(1)
    expect(await taskRow(taskId)).toMatchObject({ status: 'completed', result_key: first.result_key, attempts: 2 })
    expect(storedResults(taskId)).toEqual([first.result_key])
    expect(await creditsOf(user.id)).toBe(8)
  })

  test('a result that arrives after recovery put the task back in the queue is kept for the next attempt', async () => {
    const { user, taskId } = await newTask()
    // While the provider renders, stalled-task recovery gives up on this attempt and re-queues the task.
    const requeuedMeanwhile = countingProvider(async () => {
      await db.updateTable('generation_tasks').set({ status: 'queued', progress: 0 }).where('id', '=', taskId).execute()
    })
    await runGeneration({ taskId }, jobHelpers(1), imageGeneration(requeuedMeanwhile))
    expect(await taskRow(taskId)).toMatchObject({ status: 'queued' })
    expect(storedResults(taskId)).toHaveLength(1)

    await runGeneration({ taskId }, jobHelpers(2), imageGeneration(requeuedMeanwhile))
    expect(requeuedMeanwhile.calls).toBe(1)
    expect(await taskRow(taskId)).toMatchObject({ status: 'completed' })
    expect(await creditsOf(user.id)).toBe(8)
  })

  test('a result arriving after the task was failed is dropped, not delivered', async () => {
    const { taskId } = await newTask()
    await startTaskAttempt(db, taskId, 'local')
    await db.transaction().execute((tx) => failTask(tx, taskId, 'gave up'))
    expect(await completeTask(db, taskId, 'tasks/x/2026/01/' + 'b'.repeat(64) + '.png')).toBe(false)
    expect(await taskRow(taskId)).toMatchObject({ status: 'failed', result_key: null })
  })
})

describe('expire_media', () => {
  test('removes expired tasks with their files and keeps the rest', async () => {
    const expired = await newTask()
    const fresh = await newTask()
    await runGeneration({ taskId: expired.taskId }, jobHelpers(1), imageGeneration(createInstantImageProvider(0)))
    await runGeneration({ taskId: fresh.taskId }, jobHelpers(1), imageGeneration(createInstantImageProvider(0)))
    const expiredFiles = media.taskFiles().filter((key) => key.startsWith(`tasks/${expired.taskId}/`))
    expect(expiredFiles.length).toBeGreaterThan(0)

    const elevenDaysLater = new Date(Date.now() + 11 * 86_400_000)
    await db
      .updateTable('generation_tasks')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', expired.taskId)
      .execute()
    expect(await expireTasks(db, new Date())).toBe(1)
    expect(await db.selectFrom('generation_tasks').select('id').where('id', '=', expired.taskId).execute()).toEqual([])
    expect(media.taskFiles().filter((key) => key.startsWith(`tasks/${expired.taskId}/`))).toEqual([])
    expect(media.taskFiles().some((key) => key.startsWith(`tasks/${fresh.taskId}/`))).toBe(true)
    // The ledger keeps its lines, still naming the task they paid for.
    expect(
      await db
        .selectFrom('credit_transactions')
        .select('task_id')
        .where('user_id', '=', expired.user.id)
        .where('type', '=', 'spend')
        .execute(),
    ).toEqual([{ task_id: expired.taskId }])

    expect(await expireTasks(db, elevenDaysLater)).toBeGreaterThanOrEqual(1)
    expect(await db.selectFrom('generation_tasks').select('id').where('id', '=', fresh.taskId).execute()).toEqual([])
  })
})

describe('recover_stalled_tasks', () => {
  /** Makes the task's job look taken by a worker that died `agoMs` ago. */
  async function lockedByDeadWorker(taskId: string, agoMs: number, attempts: number) {
    await sql`
      UPDATE graphile_worker._private_jobs
      SET locked_by = 'dead-worker', locked_at = now() - make_interval(secs => ${agoMs / 1000}), attempts = ${attempts}
      WHERE key = ${taskId}
    `.execute(db)
    await db
      .updateTable('generation_tasks')
      .set({ status: 'processing', heartbeat_at: sql`now() - make_interval(secs => ${agoMs / 1000})` })
      .where('id', '=', taskId)
      .execute()
  }
  const job = async (taskId: string) =>
    (
      await sql<{ locked_by: string | null; attempts: number }>`
        SELECT locked_by, attempts FROM graphile_worker.jobs WHERE key = ${taskId}
      `.execute(db)
    ).rows[0]

  test('a silent task with attempts left goes back to the queue and its job is unlocked', async () => {
    const { taskId } = await newTask()
    await lockedByDeadWorker(taskId, 5_000, 1)
    expect(await recoverStalledTasks(db, 2_000)).toMatchObject({ requeued: [taskId], failed: [] })
    expect(await taskRow(taskId)).toMatchObject({ status: 'queued' })
    expect(await job(taskId)).toEqual({ locked_by: null, attempts: 1 })
  })

  test('a silent task out of attempts is failed and refunded once, and its job removed', async () => {
    const { user, taskId } = await newTask()
    await lockedByDeadWorker(taskId, 5_000, 4)
    expect(await recoverStalledTasks(db, 2_000)).toMatchObject({ failed: [taskId] })
    expect(await recoverStalledTasks(db, 2_000)).toEqual({ requeued: [], failed: [] })
    expect(await taskRow(taskId)).toMatchObject({ status: 'failed', error: UNFINISHED_REASON })
    expect(await refundsOf(taskId)).toHaveLength(1)
    expect(await creditsOf(user.id)).toBe(10)
    expect(await job(taskId)).toBeUndefined()
  })

  test('a task with a recent heartbeat, or a queued one waiting its turn, is left alone', async () => {
    const beating = await newTask()
    await lockedByDeadWorker(beating.taskId, 5_000, 1)
    await db
      .updateTable('generation_tasks')
      .set({ heartbeat_at: new Date() })
      .where('id', '=', beating.taskId)
      .execute()
    const waiting = await newTask()
    const result = await recoverStalledTasks(db, 2_000)
    expect(result.requeued).not.toContain(beating.taskId)
    expect(result.requeued).not.toContain(waiting.taskId)
    expect(result.failed).not.toContain(waiting.taskId)
    expect(await taskRow(beating.taskId)).toMatchObject({ status: 'processing' })
  })

  test('a task whose job vanished is failed and refunded', async () => {
    const { user, taskId } = await newTask()
    await sql`DELETE FROM graphile_worker._private_jobs WHERE key = ${taskId}`.execute(db)
    await sql`UPDATE generation_tasks SET created_at = now() - interval '10 seconds' WHERE id = ${taskId}`.execute(db)
    expect((await recoverStalledTasks(db, 2_000)).failed).toContain(taskId)
    expect(await creditsOf(user.id)).toBe(10)
  })
})
