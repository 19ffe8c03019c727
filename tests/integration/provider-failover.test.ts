import { sql } from 'kysely'
import {
  admitCall,
  recordFailure,
  recordSuccess,
  type BreakerSettings,
} from '#domain/generation/provider-breakers.server.ts'
import { WAITED_TOO_LONG_REASON } from '#domain/generation/task-waits.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { generateWithFailover, type ProviderChain } from '#worker/providers/failover.ts'
import { createGeminiImageProvider } from '#worker/providers/image/gemini.ts'
import { createOpenAiImageProvider } from '#worker/providers/image/openai.ts'
import { sharedRateLimit } from '#worker/providers/shared-rate-limit.ts'
import { imageGeneration } from '#worker/jobs/generate-image.ts'
import { runGeneration } from '#worker/generation/run-generation.ts'
import { startGeminiFake, type GeminiFake } from '#tests/fakes/gemini.ts'
import { startOpenAiFake, type OpenAiFake } from '#tests/fakes/openai.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import {
  creditsOf,
  petPhoto,
  photoFile,
  refundsOf,
  submitGeneration,
  taskRow,
  withOwnDataDir,
} from '#tests/helpers/generation.ts'
import { jobHelpers, queuedJobs } from '#tests/helpers/jobs.ts'
import { loader as analyticsLoader } from '#app/routes/analytics.tsx'
import { withMaker } from '#tests/helpers/made-by.ts'

const OWNER = 'owner-of-the-shop@pawtrait.test'
process.env.OWNER_EMAIL = OWNER

withOwnDataDir()
const db = getDb()
let openai: OpenAiFake
let gemini: GeminiFake

// A cool-down no test waits out: coolDown() moves the opening back instead, so a busy machine cannot
// end a cool-down early between two steps of a test.
const breakers: BreakerSettings = { failures: 3, windowMs: 60_000, cooldownMs: 60_000, probeTimeoutMs: 10_000 }

beforeAll(async () => {
  openai = await startOpenAiFake({ slowMs: 900 })
  gemini = await startGeminiFake()
})
afterAll(async () => {
  await openai.close()
  await gemini.close()
})
beforeEach(async () => {
  openai.setMode('success')
  gemini.setMode('success')
  openai.requests.length = 0
  gemini.requests.length = 0
  await db.deleteFrom('provider_breakers').execute()
  await db.deleteFrom('provider_breaker_failures').execute()
  await db.deleteFrom('provider_requests').execute()
  await db.deleteFrom('provider_failovers').execute()
})

interface ChainOptions {
  first?: 'openai' | 'gemini'
  stallMs?: number
  openaiRpm?: number
  geminiRpm?: number
}

/** As if `provider`'s breaker had opened a cool-down ago. */
async function coolDown(provider: string) {
  await db
    .updateTable('provider_breakers')
    .set({ opened_at: new Date(Date.now() - breakers.cooldownMs - 1_000) })
    .where('provider', '=', provider)
    .execute()
}

/** OpenAI then Gemini (or the other way round), each with its own rate limit, with breakers. */
function chain(options: ChainOptions = {}): ProviderChain {
  const viaOpenAi = {
    provider: createOpenAiImageProvider({
      apiKey: openai.apiKey,
      baseUrl: openai.baseUrl,
      timeoutMs: 5_000,
      stallMs: options.stallMs,
    }),
    beforeRequest: sharedRateLimit(db, 'image:openai', 'OpenAI', options.openaiRpm),
  }
  const viaGemini = {
    provider: createGeminiImageProvider({
      apiKey: gemini.apiKey,
      baseUrl: gemini.baseUrl,
      timeoutMs: 5_000,
      stallMs: options.stallMs,
    }),
    beforeRequest: sharedRateLimit(db, 'image:gemini', 'Gemini', options.geminiRpm),
  }
  return { links: options.first === 'gemini' ? [viaGemini, viaOpenAi] : [viaOpenAi, viaGemini], breakers }
}

async function newTask() {
  const { user, token } = await createTestUser({ credits: 10 })
  const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
  return { user, taskId: body.taskId as string }
}

/** The task's row after one run, with who made its first version (`madeBy`, `model`). */
async function run(taskId: string, options: ChainOptions = {}) {
  await runGeneration({ taskId }, jobHelpers(1), imageGeneration(chain(options)))
  return withMaker(await taskRow(taskId))
}

const breakerOf = (provider: string) =>
  db.selectFrom('provider_breakers').selectAll().where('provider', '=', provider).executeTakeFirst()
const failoversOf = (taskId: string) =>
  db.selectFrom('provider_failovers').selectAll().where('task_id', '=', taskId).execute()

async function failoverCount(labels: string) {
  const text = await getMetrics().registry.getSingleMetricAsString('pawtrait_provider_failovers_total')
  const line = text.split('\n').find((entry) => entry.startsWith(`pawtrait_provider_failovers_total{${labels}}`))
  return line ? Number(line.split(' ').at(-1)) : 0
}

describe('failover within the same job', () => {
  test('a 503 run moves each version to Gemini, charged once; after K failures the breaker opens and OpenAI is skipped', async () => {
    openai.setMode('unavailable')
    const before = await failoverCount('from="openai",to="gemini",reason="retryable"')
    for (let index = 0; index < breakers.failures; index++) {
      const { user, taskId } = await newTask()
      const charged = await creditsOf(user.id)
      const row = await run(taskId)
      expect(row).toMatchObject({ status: 'completed', madeBy: 'gemini', model: 'gemini-3.1-flash-image' })
      expect(row.attempts).toBe(1)
      expect(await creditsOf(user.id)).toBe(charged)
      expect(await failoversOf(taskId)).toMatchObject([
        { from_provider: 'openai', to_provider: 'gemini', reason: 'retryable' },
      ])
    }
    expect(await failoverCount('from="openai",to="gemini",reason="retryable"')).toBe(before + breakers.failures)
    expect(await breakerOf('openai')).toMatchObject({ state: 'open', open_reason: 'retryable' })
    expect((await breakerOf('openai'))?.last_error).toMatch(/OpenAI is temporarily unavailable \(HTTP 503\)/)

    const calls = openai.requests.length
    const { taskId } = await newTask()
    expect(await run(taskId)).toMatchObject({ status: 'completed', madeBy: 'gemini' })
    expect(openai.requests.length).toBe(calls)
    expect(await failoversOf(taskId)).toMatchObject([{ reason: 'breaker_open' }])
  })

  test('a run of two versions moves whole to Gemini (one call per version), charged once, each version naming its maker', async () => {
    openai.setMode('unavailable')
    const { user, token } = await createTestUser({ credits: 10 })
    const { body } = await submitGeneration(token, [photoFile(await petPhoto())], { variants: '2' })
    const taskId = body.taskId as string
    const charged = await creditsOf(user.id)
    await runGeneration({ taskId }, jobHelpers(1), imageGeneration(chain()))
    expect((await taskRow(taskId)).status).toBe('completed')
    const versions = await db
      .selectFrom('task_versions')
      .select(['version_index', 'provider', 'model'])
      .where('task_id', '=', taskId)
      .orderBy('version_index')
      .execute()
    expect(versions).toEqual([
      { version_index: 0, provider: 'gemini', model: 'gemini-3.1-flash-image' },
      { version_index: 1, provider: 'gemini', model: 'gemini-3.1-flash-image' },
    ])
    expect(openai.requests).toHaveLength(1)
    expect(gemini.requests).toHaveLength(2)
    expect(await creditsOf(user.id)).toBe(charged)
    expect(await refundsOf(taskId)).toEqual([])
  })

  test("an answer is kept when its breaker's bookkeeping cannot be written: the provider is asked once", async () => {
    const { taskId } = await newTask()
    // Every write of the breakers' table fails (as it does on a full pool or a database gone away).
    await sql`CREATE FUNCTION refuse_breaker_writes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'breakers unavailable'; END $$`.execute(db)
    await sql`CREATE TRIGGER refuse_breaker_writes BEFORE UPDATE ON provider_breakers
      FOR EACH STATEMENT EXECUTE FUNCTION refuse_breaker_writes()`.execute(db)
    try {
      expect(await run(taskId)).toMatchObject({ status: 'completed', madeBy: 'openai' })
      expect(openai.requests).toHaveLength(1)
      expect(await refundsOf(taskId)).toEqual([])
    } finally {
      await sql`DROP TRIGGER refuse_breaker_writes ON provider_breakers`.execute(db)
      await sql`DROP FUNCTION refuse_breaker_writes()`.execute(db)
    }
  })

  test('a hanging socket (no headers within PROVIDER_STALL_MS) is a stall: the version moves on at once', async () => {
    openai.setMode('hang')
    const { taskId } = await newTask()
    const started = Date.now()
    const row = await run(taskId, { stallMs: 300 })
    expect(row).toMatchObject({ status: 'completed', madeBy: 'gemini' })
    expect(Date.now() - started).toBeLessThan(3_000)
    expect(await failoversOf(taskId)).toMatchObject([{ reason: 'stall' }])
    expect(openai.requests).toHaveLength(1)
  })

  test('an answer that has started (headers in) is never abandoned, however long its body takes', async () => {
    // OpenAI's headers at once, the body after three stall times.
    openai.setMode('slow_body')
    const { taskId } = await newTask()
    const row = await run(taskId, { stallMs: 300 })
    expect(row).toMatchObject({ status: 'completed', madeBy: 'openai', model: 'gpt-image-2' })
    expect(gemini.requests).toHaveLength(0)
    expect(await failoversOf(taskId)).toEqual([])
  })

  test('when every provider is unavailable the task waits as before, then fails and is refunded once', async () => {
    // Both quotas gone within one job: final at once, as an exhausted quota always was; both breakers open.
    openai.setMode('insufficient_quota')
    gemini.setMode('quota_exhausted_daily')
    const spent = await newTask()
    expect(await run(spent.taskId)).toMatchObject({ status: 'failed' })
    expect(await refundsOf(spent.taskId)).toHaveLength(1)
    expect(await breakerOf('openai')).toMatchObject({ state: 'open', open_reason: 'quota' })
    expect(await breakerOf('gemini')).toMatchObject({ state: 'open', open_reason: 'quota' })

    // The next task finds both breakers open: it waits (no attempt used) until one may probe...
    const calls = openai.requests.length + gemini.requests.length
    const { user, taskId } = await newTask()
    const row = await run(taskId)
    expect(row.status).toBe('queued')
    expect(row.attempts).toBe(1)
    expect(row.waited_ms).toBeGreaterThanOrEqual(1_000)
    expect(openai.requests.length + gemini.requests.length).toBe(calls)

    // ...and past TASK_MAX_WAIT_MS it fails and is refunded once.
    await db
      .updateTable('generation_tasks')
      .set({ waited_ms: 15 * 60_000 })
      .where('id', '=', taskId)
      .execute()
    expect(await run(taskId)).toMatchObject({ status: 'failed', error: WAITED_TOO_LONG_REASON })
    expect(await refundsOf(taskId)).toHaveLength(1)
    expect(await creditsOf(user.id)).toBe(10)
  })

  test('both providers failing retryably: the job is retried with its backoff, as one provider always was', async () => {
    openai.setMode('unavailable')
    gemini.setMode('unavailable')
    const { taskId } = await newTask()
    await expect(runGeneration({ taskId }, jobHelpers(1), imageGeneration(chain()))).rejects.toMatchObject({
      reason: 'retryable',
      message: expect.stringMatching(/Gemini is temporarily unavailable \(HTTP 503\)/),
    })
    expect((await taskRow(taskId)).status).toBe('queued')
    expect(await failoversOf(taskId)).toMatchObject([{ from_provider: 'openai', to_provider: 'gemini' }])
  })
})

describe('the breakers', () => {
  test("OpenAI's insufficient_quota opens the breaker at once, and the owner is emailed once an hour", async () => {
    const emailsBefore = (await queuedJobs<{ to: string; subject: string }>('send_email')).length
    openai.setMode('insufficient_quota')
    const { taskId } = await newTask()
    expect(await run(taskId)).toMatchObject({ status: 'completed', madeBy: 'gemini' })
    expect(await breakerOf('openai')).toMatchObject({ state: 'open', open_reason: 'quota', failures: 1 })
    expect(await failoversOf(taskId)).toMatchObject([{ reason: 'quota' }])
    const emails = (await queuedJobs<{ to: string; subject: string; text: string }>('send_email')).slice(emailsBefore)
    expect(emails).toHaveLength(1)
    expect(emails[0]).toMatchObject({ to: OWNER, subject: expect.stringContaining('openai') })
    expect(emails[0].text).toMatch(/quota is used up/)

    // After the cool-down the probe finds the quota still gone: open again, and no second email this hour.
    await coolDown('openai')
    const again = await newTask()
    expect(await run(again.taskId)).toMatchObject({ status: 'completed', madeBy: 'gemini' })
    expect(await breakerOf('openai')).toMatchObject({ state: 'open', open_reason: 'quota' })
    expect(await queuedJobs('send_email')).toHaveLength(emailsBefore + 1)
  })

  test("Gemini's per-day RESOURCE_EXHAUSTED opens its breaker at once; a per-minute one only waits", async () => {
    gemini.setMode('rate_limit_once')
    const busy = await newTask()
    expect(await run(busy.taskId, { first: 'gemini' })).toMatchObject({ status: 'completed', madeBy: 'openai' })
    expect(await breakerOf('gemini')).toMatchObject({ state: 'closed', failures: 0 })
    expect(await failoversOf(busy.taskId)).toMatchObject([{ reason: 'busy' }])

    gemini.setMode('quota_exhausted_daily')
    const { taskId } = await newTask()
    expect(await run(taskId, { first: 'gemini' })).toMatchObject({ status: 'completed', madeBy: 'openai' })
    expect(await breakerOf('gemini')).toMatchObject({ state: 'open', open_reason: 'quota' })
  })

  test('retryable failures of K users within the window open it, even with answers between them', async () => {
    const failure = { reason: 'retryable', message: 'OpenAI is temporarily unavailable (HTTP 503).' }
    for (let index = 0; index < breakers.failures; index++) {
      await recordSuccess(db, 'openai')
      const caller = { taskId: crypto.randomUUID(), userId: crypto.randomUUID() }
      await recordFailure(db, 'openai', failure, breakers, caller)
    }
    expect(await breakerOf('openai')).toMatchObject({ state: 'open', open_reason: 'retryable' })
  })

  test.each(['prepay_depleted', 'billing_required'] as const)(
    "Gemini's billing answer (%s) opens its breaker at once and the version moves on",
    async (mode) => {
      gemini.setMode(mode)
      const { taskId } = await newTask()
      expect(await run(taskId, { first: 'gemini' })).toMatchObject({ status: 'completed', madeBy: 'openai' })
      expect(await breakerOf('gemini')).toMatchObject({ state: 'open', open_reason: 'quota' })
      expect(await failoversOf(taskId)).toMatchObject([{ reason: 'quota' }])
    },
  )

  test('a refused key (401/403) opens the breaker at once', async () => {
    openai.setMode('forbidden')
    const { taskId } = await newTask()
    expect(await run(taskId)).toMatchObject({ status: 'completed', madeBy: 'gemini' })
    expect(await breakerOf('openai')).toMatchObject({ state: 'open', open_reason: 'auth' })

    gemini.setMode('forbidden')
    const other = await newTask()
    expect(await run(other.taskId, { first: 'gemini' })).toMatchObject({ status: 'queued' })
    expect(await breakerOf('gemini')).toMatchObject({ state: 'open', open_reason: 'auth' })
  })

  test('half-open: after the cool-down exactly one caller gets the probe; its success closes the breaker', async () => {
    openai.setMode('insufficient_quota')
    await run((await newTask()).taskId)
    expect(await breakerOf('openai')).toMatchObject({ state: 'open' })
    expect(await admitCall(db, 'openai', breakers)).toMatchObject({ state: 'open' })

    await coolDown('openai')
    const admissions = await Promise.all(Array.from({ length: 6 }, () => admitCall(db, 'openai', breakers)))
    expect(admissions.filter((admission) => admission.state === 'probe')).toHaveLength(1)
    expect(await breakerOf('openai')).toMatchObject({ state: 'half_open' })

    // The probe's worker died: after probeTimeoutMs another caller may probe. Here it came back fine.
    await db
      .updateTable('provider_breakers')
      .set({ probe_started_at: new Date(Date.now() - breakers.probeTimeoutMs - 1_000) })
      .execute()
    openai.setMode('success')
    const { taskId } = await newTask()
    expect(await run(taskId)).toMatchObject({ status: 'completed', madeBy: 'openai' })
    expect(await breakerOf('openai')).toMatchObject({ state: 'closed', failures: 0 })
  })

  test('a probe whose job is stopped mid-call gives the probe back at once', async () => {
    openai.setMode('hang')
    await db
      .insertInto('provider_breakers')
      .values({ provider: 'openai', state: 'open', opened_at: new Date(Date.now() - breakers.cooldownMs - 1_000) })
      .execute()
    const stop = new AbortController()
    const request = {
      images: [{ bytes: await petPhoto(), mimeType: 'image/jpeg' as const }],
      prompt: 'p',
      style: 'general',
      guided: null,
    }
    const context = { signal: stop.signal, onProgress: () => {} }
    const caller = { taskId: crypto.randomUUID(), userId: crypto.randomUUID() }
    const call = generateWithFailover(db, chain(), request, [0], context, caller)
    setTimeout(() => stop.abort(), 300)
    await expect(call).rejects.toThrow()
    expect(await breakerOf('openai')).toMatchObject({ state: 'half_open', probe_started_at: null })
    expect(await admitCall(db, 'openai', breakers)).toEqual({ state: 'probe' })
  })

  test('a failed probe opens the breaker again for another cool-down', async () => {
    openai.setMode('unavailable')
    for (let index = 0; index < breakers.failures; index++) await run((await newTask()).taskId)
    const opened = (await breakerOf('openai'))?.opened_at
    await coolDown('openai')
    const calls = openai.requests.length
    await run((await newTask()).taskId)
    expect(openai.requests.length).toBe(calls + 1)
    const breaker = await breakerOf('openai')
    expect(breaker).toMatchObject({ state: 'open' })
    expect(breaker?.opened_at?.getTime()).toBeGreaterThan(opened?.getTime() ?? 0)
  })
})

describe('one user cannot open a breaker for everyone (issue 38)', () => {
  test("one user's failing tasks count once: the breaker stays closed and another user's tasks keep reaching OpenAI", async () => {
    const { user, token } = await createTestUser({ credits: 40 })
    const failing = async () => {
      const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
      openai.setMode('unavailable')
      expect(await run(body.taskId as string)).toMatchObject({ status: 'completed', madeBy: 'gemini' })
    }
    for (let index = 0; index < breakers.failures + 2; index++) {
      await failing()
      // Between them another user's task is made by OpenAI.
      openai.setMode('success')
      expect(await run((await newTask()).taskId)).toMatchObject({ status: 'completed', madeBy: 'openai' })
    }
    expect(await breakerOf('openai')).toMatchObject({ state: 'closed', failures: 1 })
    expect(await db.selectFrom('provider_breaker_failures').select(['provider', 'user_id']).execute()).toEqual([
      { provider: 'openai', user_id: user.id },
    ])

    // The retries of one task count once too.
    const failure = { reason: 'retryable', message: 'OpenAI is temporarily unavailable (HTTP 503).' }
    const retried = { taskId: crypto.randomUUID(), userId: crypto.randomUUID() }
    for (let index = 0; index < breakers.failures; index++) {
      expect(await recordFailure(db, 'openai', failure, breakers, retried)).toBe(false)
    }
    expect(await breakerOf('openai')).toMatchObject({ state: 'closed', failures: 2 })
  })

  test('the half-open probe is never the task that opened the breaker', async () => {
    const opener = await newTask()
    await db
      .insertInto('provider_breakers')
      .values({
        provider: 'openai',
        state: 'open',
        opened_at: new Date(Date.now() - breakers.cooldownMs - 1_000),
        opened_by_task_id: opener.taskId,
      })
      .execute()
    openai.setMode('success')
    const asked = openai.requests.length
    // Its retry skips OpenAI (Gemini makes it) and leaves the probe to someone else.
    expect(await run(opener.taskId)).toMatchObject({ status: 'completed', madeBy: 'gemini' })
    expect(openai.requests.length).toBe(asked)
    expect(await breakerOf('openai')).toMatchObject({ state: 'open' })

    const other = await newTask()
    expect(await run(other.taskId)).toMatchObject({ status: 'completed', madeBy: 'openai' })
    expect(await breakerOf('openai')).toMatchObject({ state: 'closed', failures: 0, opened_by_task_id: null })
  })
})

describe('refusals never fail over', () => {
  test.each([
    ['moderation_blocked', 'moderation'],
    ['content_policy_violation', 'content_policy'],
  ] as const)("OpenAI's %s fails the task and refunds it, Gemini never asked", async (_code, mode) => {
    openai.setMode(mode)
    const { user, taskId } = await newTask()
    const row = await run(taskId)
    expect(row.status).toBe('failed')
    expect(row.error).toMatch(/declined to create this image because of its content rules/)
    expect(gemini.requests).toHaveLength(0)
    expect(await refundsOf(taskId)).toHaveLength(1)
    expect(await creditsOf(user.id)).toBe(10)
    expect(await breakerOf('openai')).toMatchObject({ state: 'closed', failures: 0 })
  })

  test.each(['blocked_prompt', 'image_safety'] as const)(
    "Gemini's %s fails the task and refunds it, OpenAI never asked",
    async (mode) => {
      gemini.setMode(mode)
      const { taskId } = await newTask()
      expect(await run(taskId, { first: 'gemini' })).toMatchObject({ status: 'failed' })
      expect(openai.requests).toHaveLength(0)
      expect(await refundsOf(taskId)).toHaveLength(1)
      expect(await failoversOf(taskId)).toEqual([])
    },
  )

  test('the reason codes are machine-readable for refund lines', async () => {
    openai.setMode('moderation')
    const provider = createOpenAiImageProvider({ apiKey: openai.apiKey, baseUrl: openai.baseUrl })
    const request = {
      images: [{ bytes: await petPhoto(), mimeType: 'image/jpeg' as const }],
      prompt: 'p',
      style: 'general',
      guided: null,
    }
    const context = { signal: new AbortController().signal, onProgress: () => {} }
    await expect(provider.generate(request, context)).rejects.toMatchObject({ reason: 'refused' })
    openai.setMode('insufficient_quota')
    await expect(provider.generate(request, context)).rejects.toMatchObject({ reason: 'quota' })
    openai.setMode('billing_limit')
    await expect(provider.generate(request, context)).rejects.toMatchObject({ reason: 'quota' })
    openai.setMode('forbidden')
    await expect(provider.generate(request, context)).rejects.toMatchObject({ reason: 'auth' })
    openai.setMode('unavailable')
    await expect(provider.generate(request, context)).rejects.toMatchObject({ reason: 'retryable' })
  })
})

describe('each provider keeps its own rate limit', () => {
  test('OpenAI full moves the version to Gemini; both full, the task waits; neither limit is exceeded', async () => {
    const limits = { openaiRpm: 1, geminiRpm: 1 }
    const first = await newTask()
    expect(await run(first.taskId, limits)).toMatchObject({ status: 'completed', madeBy: 'openai' })
    const second = await newTask()
    expect(await run(second.taskId, limits)).toMatchObject({ status: 'completed', madeBy: 'gemini' })
    expect(await failoversOf(second.taskId)).toMatchObject([{ reason: 'busy' }])
    const third = await newTask()
    const waiting = await run(third.taskId, limits)
    expect(waiting.status).toBe('queued')
    expect(waiting.waited_ms).toBeGreaterThan(30_000)

    expect(openai.requests).toHaveLength(1)
    expect(gemini.requests).toHaveLength(1)
    const { rows } = await sql<{ provider: string; count: number }>`
      SELECT provider, count(*)::int AS count FROM provider_requests GROUP BY provider ORDER BY provider
    `.execute(db)
    expect(rows).toEqual([
      { provider: 'image:gemini', count: 1 },
      { provider: 'image:openai', count: 1 },
    ])
  })
})

test('/analytics shows versions per provider and model, and failovers per day with their reasons', async () => {
  openai.setMode('unavailable')
  await run((await newTask()).taskId)
  openai.setMode('success')
  await db.deleteFrom('provider_breakers').execute()
  await run((await newTask()).taskId)

  const admin = await createTestUser({ role: 'superadmin' })
  const today = new Date().toISOString().slice(0, 10)
  const response = await callRoute(
    analyticsLoader,
    makeRequest(`/analytics?startDate=${today}&endDate=${today}`, { token: admin.token }),
  )
  expect(response.status).toBe(200)
  const { providers } = await response.json()
  expect(providers.versions).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ provider: 'gemini', model: 'gemini-3.1-flash-image' }),
      expect.objectContaining({ provider: 'openai', model: 'gpt-image-2' }),
    ]),
  )
  expect(providers.failoversByDay).toEqual([{ date: today, count: 1, reasons: 'retryable 1' }])
})
