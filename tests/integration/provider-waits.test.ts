import { sql } from 'kysely'
import type { JobHelpers } from 'graphile-worker'
import { WAITED_TOO_LONG_REASON } from '#domain/generation/task-waits.server.ts'
import { getDb } from '#platform/db.server.ts'
import { createGeminiImageProvider } from '#worker/providers/image/gemini.ts'
import { createOpenAiImageProvider } from '#worker/providers/image/openai.ts'
import { reserveRequest, sharedRateLimit } from '#worker/providers/shared-rate-limit.ts'
import { ProviderError } from '#worker/providers/types.ts'
import { imageGeneration } from '#worker/jobs/generate-image.ts'
import { runGeneration } from '#worker/generation/run-generation.ts'
import { startGeminiFake, type GeminiFake } from '#tests/fakes/gemini.ts'
import { startOpenAiFake, type OpenAiFake } from '#tests/fakes/openai.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import {
  creditsOf,
  petPhoto,
  photoFile,
  refundsOf,
  submitGeneration,
  taskRow,
  withOwnDataDir,
} from '#tests/helpers/generation.ts'
import { jobHelpers } from '#tests/helpers/jobs.ts'
import { freePort } from '../../scripts/embedded-postgres.ts'

withOwnDataDir()
const db = getDb()
let openai: OpenAiFake
let gemini: GeminiFake

beforeAll(async () => {
  openai = await startOpenAiFake({ slowMs: 2_000 })
  gemini = await startGeminiFake()
})
afterAll(async () => {
  await openai.close()
  await gemini.close()
})
beforeEach(() => {
  openai.setMode('success')
  gemini.setMode('success')
})

async function newTask() {
  const { user, token } = await createTestUser({ credits: 10 })
  const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
  return { user, taskId: body.taskId as string }
}

/** One attempt's helpers, keeping what the job logged at error level. */
function helpers(attempts: number) {
  const errors: string[] = []
  const base = jobHelpers(attempts)
  const logged = {
    ...base,
    logger: { ...base.logger, error: (message: string) => void errors.push(message) },
  } as unknown as JobHelpers
  return { helpers: logged, errors }
}

/** The task's job as graphile-worker holds it. */
async function jobOf(taskId: string) {
  const { rows } = await sql<{ run_at: Date; attempts: number; max_attempts: number }>`
    SELECT run_at, attempts, max_attempts FROM graphile_worker._private_jobs WHERE key = ${taskId}
  `.execute(db)
  return rows[0]
}

const viaOpenAi = (timeoutMs?: number) =>
  imageGeneration(createOpenAiImageProvider({ apiKey: openai.apiKey, baseUrl: openai.baseUrl, timeoutMs }))
const viaGemini = () => imageGeneration(createGeminiImageProvider({ apiKey: gemini.apiKey, baseUrl: gemini.baseUrl }))

describe('waiting for room at the provider', () => {
  test("a 429 waits for OpenAI's retry-after in a later run of the job, using up no attempt", async () => {
    const { user, taskId } = await newTask()
    const charged = await creditsOf(user.id)
    openai.setMode('rate_limit_once')
    const before = Date.now()
    const { helpers: attempt } = helpers(2)
    await runGeneration({ taskId }, attempt, viaOpenAi())

    const row = await taskRow(taskId)
    expect(row.status).toBe('queued')
    expect(row.waited_ms).toBeGreaterThanOrEqual(1000)
    const job = await jobOf(taskId)
    // retry-after: 1 (plus up to a second of jitter), and the attempts left are all still there.
    expect(job.run_at.getTime()).toBeGreaterThanOrEqual(before + 1000)
    expect(job.run_at.getTime()).toBeLessThan(Date.now() + 2100)
    expect(job.max_attempts - job.attempts).toBe(3)
    expect(await creditsOf(user.id)).toBe(charged)
    expect(charged).toBeLessThan(10)

    // The later run succeeds.
    await runGeneration({ taskId }, jobHelpers(1, 3), viaOpenAi())
    expect((await taskRow(taskId)).status).toBe('completed')
  })

  test("a Gemini 429 waits for RetryInfo's retryDelay", async () => {
    const { taskId } = await newTask()
    gemini.setMode('rate_limit_once')
    await runGeneration({ taskId }, jobHelpers(1), viaGemini())
    const row = await taskRow(taskId)
    expect(row.status).toBe('queued')
    expect(row.waited_ms).toBeGreaterThanOrEqual(1000)
    expect((await jobOf(taskId)).max_attempts).toBe(4)
  })

  test('a task that would wait longer than TASK_MAX_WAIT_MS in total fails and is refunded once', async () => {
    const { user, taskId } = await newTask()
    await db
      .updateTable('generation_tasks')
      .set({ waited_ms: 15 * 60_000 - 500 })
      .where('id', '=', taskId)
      .execute()
    openai.setMode('rate_limit_once')
    await runGeneration({ taskId }, jobHelpers(1), viaOpenAi())

    const row = await taskRow(taskId)
    expect(row).toMatchObject({ status: 'failed', error: WAITED_TOO_LONG_REASON })
    expect(await refundsOf(taskId)).toHaveLength(1)
    expect(await creditsOf(user.id)).toBe(10)
  })

  test('an OpenAI host refusing connections is waited for, as long again as waited so far, using no attempt; then failed and refunded once', async () => {
    const { user, taskId } = await newTask()
    // Nothing listens there.
    const refusing = imageGeneration(
      createOpenAiImageProvider({ apiKey: openai.apiKey, baseUrl: `http://127.0.0.1:${await freePort()}/v1` }),
    )
    const waitedAfterRun = async () => {
      await runGeneration({ taskId }, jobHelpers(1), refusing)
      const row = await taskRow(taskId)
      expect(row.status).toBe('queued')
      expect((await jobOf(taskId)).max_attempts).toBe(4)
      return row.waited_ms
    }
    // 1 s at first, plus up to a second of jitter.
    const first = await waitedAfterRun()
    expect(first).toBeGreaterThanOrEqual(1000)
    expect(first).toBeLessThanOrEqual(2000)
    // Then the waits double.
    expect(await waitedAfterRun()).toBeGreaterThanOrEqual(2 * first)

    await db
      .updateTable('generation_tasks')
      .set({ waited_ms: 15 * 60_000 - 500 })
      .where('id', '=', taskId)
      .execute()
    await runGeneration({ taskId }, jobHelpers(1), refusing)
    expect(await taskRow(taskId)).toMatchObject({ status: 'failed', error: 'OpenAI could not be reached.' })
    expect(await refundsOf(taskId)).toHaveLength(1)
    expect(await creditsOf(user.id)).toBe(10)
  })

  test('an exhausted OpenAI quota (insufficient_quota) fails at once, refunds, and tells the operator', async () => {
    const { user, taskId } = await newTask()
    openai.setMode('insufficient_quota')
    const { helpers: attempt, errors } = helpers(1)
    await runGeneration({ taskId }, attempt, viaOpenAi())

    const row = await taskRow(taskId)
    expect(row.status).toBe('failed')
    expect(row.error).toMatch(/quota is used up/)
    expect(await refundsOf(taskId)).toHaveLength(1)
    expect(await creditsOf(user.id)).toBe(10)
    expect(errors.join('\n')).toMatch(/OPERATOR: openai quota exhausted/)
  })

  test("Google's daily RESOURCE_EXHAUSTED fails at once and refunds", async () => {
    const { user, taskId } = await newTask()
    gemini.setMode('quota_exhausted_daily')
    const { helpers: attempt, errors } = helpers(1)
    await runGeneration({ taskId }, attempt, viaGemini())
    expect((await taskRow(taskId)).status).toBe('failed')
    expect(await creditsOf(user.id)).toBe(10)
    expect(errors.join('\n')).toMatch(/OPERATOR: gemini quota exhausted/)
  })

  test('a timed-out image call is retried once, then the task fails even with attempts left', async () => {
    const { user, taskId } = await newTask()
    openai.setMode('slow')
    await expect(runGeneration({ taskId }, jobHelpers(1), viaOpenAi(200))).rejects.toThrow(/did not answer/)
    expect(await taskRow(taskId)).toMatchObject({ status: 'queued', timed_out_calls: 1 })

    await runGeneration({ taskId }, jobHelpers(2), viaOpenAi(200))
    const row = await taskRow(taskId)
    expect(row).toMatchObject({ status: 'failed', timed_out_calls: 2 })
    expect(row.error).toBe('OpenAI did not answer within 0.2 s.')
    expect(await creditsOf(user.id)).toBe(10)
  })
})

describe('the shared rate limit', () => {
  test('of many reservations at once, exactly the limit gets through; the rest learn when room comes', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => reserveRequest(db, 'test:burst', 5)))
    expect(results.filter(({ granted }) => granted === 1)).toHaveLength(5)
    const waits = results.filter(({ granted }) => granted === 0).map(({ waitMs }) => waitMs)
    expect(waits).toHaveLength(7)
    expect(Math.min(...waits)).toBeGreaterThan(55_000)
    expect(Math.max(...waits)).toBeLessThanOrEqual(61_000)
  })

  test('room a moment away is waited for in the slot, and nothing is let in before the oldest leaves the window', async () => {
    const provider = 'test:moment'
    const rpm = 4
    // A full window whose requests leave it in about 1.5 s (the window is 61 s).
    const { rows: full } = await sql<{ sent_at: Date }>`
      INSERT INTO provider_requests (provider, sent_at)
      SELECT ${provider}, clock_timestamp() - interval '59.5 seconds' FROM generate_series(1, ${rpm})
      RETURNING sent_at
    `.execute(db)
    const limited = sharedRateLimit(db, provider, 'OpenAI', rpm)
    const outcomes = await Promise.allSettled(Array.from({ length: 2 * rpm }, () => limited()))

    expect(outcomes.filter(({ status }) => status === 'fulfilled')).toHaveLength(rpm)
    // The others come back shortly before the new requests leave the window.
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') continue
      expect(outcome.reason).toBeInstanceOf(ProviderError)
      expect(outcome.reason.retryAfterMs).toBeGreaterThan(55_000)
      expect(outcome.reason.retryAfterMs).toBeLessThanOrEqual(61_000 - 2_500)
    }
    const { rows: sent } = await sql<{ sent_at: Date }>`
      SELECT sent_at FROM provider_requests WHERE provider = ${provider}
    `.execute(db)
    expect(sent).toHaveLength(rpm)
    const lastOfFull = Math.max(...full.map((row) => row.sent_at.getTime()))
    for (const row of sent) expect(row.sent_at.getTime() - lastOfFull).toBeGreaterThanOrEqual(61_000)
  })

  test('a job that finds no room waits for it without calling the provider or using an attempt', async () => {
    const { taskId } = await newTask()
    const limited = sharedRateLimit(db, 'test:full', 'OpenAI', 1)
    await limited()
    const calls = openai.requests.length
    await runGeneration(
      { taskId },
      jobHelpers(1),
      imageGeneration(createOpenAiImageProvider({ apiKey: openai.apiKey, baseUrl: openai.baseUrl }), limited),
    )
    expect(openai.requests.length).toBe(calls)
    const row = await taskRow(taskId)
    expect(row.status).toBe('queued')
    expect(row.waited_ms).toBeGreaterThan(55_000)
    expect((await jobOf(taskId)).max_attempts).toBe(4)
  })
})
