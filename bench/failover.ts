// Issue 33's figures: failover between two image providers. The web and one worker process with
// IMAGE_PROVIDERS=openai,gemini against both fakes (each answering in 1 s, each with its own RPM
// limit, enforced by the fake too), PROVIDER_STALL_MS=2000. 60 tasks: 20 while all is well, then
// the primary answers 503 for 60 s, then accepts connections without answering for 60 s (30 tasks
// over those two minutes), then recovers (the last 10). Afterwards: one refusal (not failed over,
// refunded) and one exhausted quota (the breaker opens at once).
import type { DB } from '#platform/db.server.ts'
import { startGeminiFake } from '#tests/fakes/gemini.ts'
import { mostInAnyWindow } from '#tests/fakes/image-api-fake.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { postGeneration, signedInUser, smallPhoto, waitUntilFinished, withDataDir } from './generation.ts'
import { percentile, round, startProcess } from './lib.ts'

type BenchDatabase = { db: DB; url: string }

const ANSWER_MS = 1_000
const STALL_MS = 2_000
const RPM = { openai: 40, gemini: 40 }
const PHASE_MS = 60_000

export async function benchFailover({ db, url }: BenchDatabase) {
  return withDataDir(async (dataDir) => {
    const env = { DATABASE_URL: url, DATA_DIR: dataDir }
    const openai = await startOpenAiFake({ latencyMs: ANSWER_MS, rpm: RPM.openai })
    const gemini = await startGeminiFake({ latencyMs: ANSWER_MS, rpm: RPM.gemini })
    const web = await startProcess('server/index.ts', { ...env, MAX_ACTIVE_TASKS_PER_USER: '1000000' }, 'is running at')
    const worker = await startProcess(
      'worker/index.ts',
      {
        ...env,
        IMAGE_PROVIDERS: 'openai,gemini',
        OPENAI_API_KEY: openai.apiKey,
        OPENAI_BASE_URL: openai.baseUrl,
        GEMINI_API_KEY: gemini.apiKey,
        GEMINI_BASE_URL: gemini.baseUrl,
        OPENAI_RPM: String(RPM.openai),
        GEMINI_RPM: String(RPM.gemini),
        PROVIDER_STALL_MS: String(STALL_MS),
        PROVIDER_TIMEOUT_MS: '30000',
        PROVIDER_BREAKER_COOLDOWN_MS: '10000',
        IMAGE_CONCURRENCY: '16',
        OWNER_EMAIL: 'owner@example.com',
      },
      '[worker] started',
    )
    try {
      const photo = await smallPhoto()
      // Each task another user's, as in real traffic: a breaker counts failing users (decision 0033).
      const submit = async () => {
        const { token } = await signedInUser(db, 1_000)
        const { status, body } = await postGeneration(web.url, token, photo)
        if (status !== 200 || !body.taskId) throw new Error(`submission failed (${status}): ${body.message}`)
        return body.taskId as string
      }
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
      const ids: string[] = []

      for (let index = 0; index < 20; index++) {
        ids.push(await submit())
        await pause(1_000)
      }
      const troubleStarted = Date.now()
      openai.setMode('unavailable')
      for (let index = 0; index < 30; index++) {
        if (Date.now() - troubleStarted >= PHASE_MS) openai.setMode('hang')
        ids.push(await submit())
        await pause((2 * PHASE_MS) / 30)
      }
      openai.setMode('success')
      for (let index = 0; index < 10; index++) {
        ids.push(await submit())
        await pause(1_000)
      }
      await waitUntilFinished(db, ids)

      const tasks = await db
        .selectFrom('generation_tasks')
        .select(['status', 'attempts'])
        .where('id', 'in', ids)
        .execute()
      const makers = await db.selectFrom('task_versions').select('provider').where('task_id', 'in', ids).execute()
      const madeBy = (provider: string) => makers.filter((version) => version.provider === provider).length
      const failovers = await db
        .selectFrom('provider_failovers')
        .select(['reason', 'failed_at', 'created_at'])
        .where('task_id', 'in', ids)
        .execute()
      const failoverMs = failovers
        .map((row) => row.created_at.getTime() - row.failed_at.getTime())
        .sort((a, b) => a - b)
      const providerFailures =
        failovers.filter((row) => row.reason !== 'breaker_open' && row.reason !== 'busy').length +
        tasks.reduce((sum, task) => sum + task.attempts - 1, 0)
      const calls = openai.requests.length + gemini.requests.length
      const byReason = (reason: string) => failovers.filter((row) => row.reason === reason).length

      // A refusal is not failed over, and is refunded.
      const geminiCalls = gemini.requests.length
      openai.setMode('moderation')
      const refusedId = await submit()
      await waitUntilFinished(db, [refusedId])
      const refused = await db
        .selectFrom('generation_tasks')
        .select('status')
        .where('id', '=', refusedId)
        .executeTakeFirstOrThrow()
      const refunds = await db
        .selectFrom('credit_transactions')
        .select('id')
        .where('task_id', '=', refusedId)
        .where('type', '=', 'earn')
        .execute()
      const refusalKept = refused.status === 'failed' && refunds.length === 1 && gemini.requests.length === geminiCalls

      // An exhausted quota opens the breaker at its first answer.
      openai.setMode('insufficient_quota')
      const quotaId = await submit()
      await waitUntilFinished(db, [quotaId])
      const breaker = await db
        .selectFrom('provider_breakers')
        .select(['state', 'open_reason', 'failures'])
        .where('provider', '=', 'openai')
        .executeTakeFirstOrThrow()
      const quotaOpensAtOnce = breaker.state === 'open' && breaker.open_reason === 'quota' && breaker.failures === 1

      return {
        'tasks completed (target 60 of 60)': tasks.filter((task) => task.status === 'completed').length,
        'versions made by openai / gemini': `${madeBy('openai')} / ${madeBy('gemini')}`,
        'failovers (retryable / stall / breaker_open / busy)': `${byReason('retryable')} / ${byReason('stall')} / ${byReason('breaker_open')} / ${byReason('busy')}`,
        'failover time p95 ms, failure to next provider starting (target < 5000)': round(percentile(failoverMs, 95), 0),
        'failover time max ms': failoverMs.at(-1) ?? 0,
        'provider calls': calls,
        'versions + provider failures (calls must not exceed)': `${ids.length} + ${providerFailures} = ${ids.length + providerFailures}`,
        [`most openai requests in any 60 s (<= ${RPM.openai})`]: mostInAnyWindow(openai.arrivals),
        [`most gemini requests in any 60 s (<= ${RPM.gemini})`]: mostInAnyWindow(gemini.arrivals),
        '429s the fakes answered for their RPM (target 0)': openai.rateLimited() + gemini.rateLimited(),
        'refusal not failed over, refunded': refusalKept ? 'yes' : 'no',
        'quota exhaustion opens the breaker at once': quotaOpensAtOnce ? 'yes' : 'no',
      }
    } finally {
      await worker.stop()
      await web.stop()
      await Promise.all([openai.close(), gemini.close()])
    }
  })
}
