// Issue 13's and 42's figures: generation bound by a remote provider, against the OpenAI fake
// answering in 5 s. (a) two worker processes sharing IMAGE_PROVIDER_RPM=60 (the fake enforces 60
// over a sliding minute too), 120 tasks from 24 users, against the ideal time the limit and the
// workers' slots allow; (b) one worker process, no limit, IMAGE_CONCURRENCY=16; (c) sign-up email
// latency while (a) keeps every generation slot busy.
import { readdirSync } from 'node:fs'
import path from 'node:path'
import type { DB } from '#platform/db.server.ts'
import { queueEmail } from '#platform/email.server.ts'
import { mostInAnyWindow } from '#tests/fakes/image-api-fake.ts'
import { startOpenAiFake, type OpenAiFake } from '#tests/fakes/openai.ts'
import { postGeneration, signedInUser, smallPhoto, waitUntilFinished, withDataDir } from './generation.ts'
import { percentile, round, startProcess } from './lib.ts'

type BenchDatabase = { db: DB; url: string }

const ANSWER_MS = 5_000
const LIMITED = { rpm: 60, tasks: 120, users: 24, workers: 2, concurrency: 16 }
const UNLIMITED = { tasks: 320, users: 64, concurrency: 16 }
const EMAIL_EVERY_MS = 1_000

export async function benchProviderBound({ db, url }: BenchDatabase) {
  return withDataDir(async (dataDir) => {
    const env = { DATABASE_URL: url, DATA_DIR: dataDir }
    const web = await startProcess('server/index.ts', env, 'is running at')
    try {
      const limited = await startOpenAiFake({ latencyMs: ANSWER_MS, rpm: LIMITED.rpm })
      const a = await run(
        db,
        web.url,
        LIMITED.tasks,
        LIMITED.users,
        async () =>
          Promise.all(
            Array.from({ length: LIMITED.workers }, () =>
              startWorker(env, limited, {
                IMAGE_PROVIDER_RPM: String(LIMITED.rpm),
                IMAGE_CONCURRENCY: String(LIMITED.concurrency),
              }),
            ),
          ),
        { emailsTo: path.join(dataDir, 'outbox') },
      )
      await limited.close()

      const unlimited = await startOpenAiFake({ latencyMs: ANSWER_MS })
      const b = await run(db, web.url, UNLIMITED.tasks, UNLIMITED.users, async () => [
        await startWorker(env, unlimited, { IMAGE_CONCURRENCY: String(UNLIMITED.concurrency) }),
      ])
      await unlimited.close()

      // From the provider's first request to the last task finished: submitting is not the limit's.
      const tookMs = a.finishedAt - Math.min(...limited.arrivals)
      const idealMs = idealTime(LIMITED.tasks, LIMITED.rpm, LIMITED.workers * LIMITED.concurrency, ANSWER_MS)
      return {
        [`(a) seconds for ${LIMITED.tasks} tasks, 2 workers, RPM ${LIMITED.rpm} / ideal`]: `${round(tookMs / 1000, 1)} / ${round(idealMs / 1000, 1)}`,
        '(a) time, % of the ideal (target <= 105)': round((100 * tookMs) / idealMs, 1),
        '(a) % of the limit used: ideal / time (target >= 95)': round((100 * idealMs) / tookMs, 1),
        [`(a) most requests the provider saw in any 60 s (<= ${LIMITED.rpm})`]: mostInAnyWindow(limited.arrivals),
        '(a) 429s the provider answered': limited.rateLimited(),
        '(a) failed tasks (target 0)': a.failed,
        [`(b) tasks/min, 1 worker, no limit, concurrency ${UNLIMITED.concurrency} (target >= 150)`]: round(
          b.perMinute,
          1,
        ),
        '(b) failed tasks': b.failed,
        '(c) sign-up email latency p95 ms during (a) (target < 2000)': round(percentile(a.emailMs, 95), 0),
        '(c) emails sent during (a)': a.emailMs.length,
      }
    } finally {
      await web.stop()
    }
  })
}

/**
 * The least time `tasks` one-request tasks can take, from the first request to the last answer,
 * with `slots` running at once, each answered in `answerMs`, and at most `rpm` requests in any
 * 60 s: each request goes as soon as a slot is free and the sliding window has room.
 */
function idealTime(tasks: number, rpm: number, slots: number, answerMs: number) {
  const sent: number[] = []
  for (let index = 0; index < tasks; index++) {
    const slotFree = index < slots ? 0 : sent[index - slots] + answerMs
    const windowRoom = index < rpm ? 0 : sent[index - rpm] + 60_000
    sent.push(Math.max(slotFree, windowRoom))
  }
  return sent[tasks - 1] + answerMs
}

function startWorker(env: Record<string, string>, fake: OpenAiFake, extra: Record<string, string>) {
  return startProcess(
    'worker/index.ts',
    { ...env, IMAGE_PROVIDER: 'openai', OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.baseUrl, ...extra },
    '[worker] started',
  )
}

/**
 * Every user submits their share of the tasks, waiting a second whenever the per-user limit of
 * active tasks answers 429, until all are done. Meanwhile, with `emailsTo`, a sign-up email is
 * queued every second and the time until it lands in the outbox measured.
 */
async function run(
  db: DB,
  webUrl: string,
  tasks: number,
  userCount: number,
  startWorkers: () => Promise<Array<{ stop(): Promise<void> }>>,
  options: { emailsTo?: string } = {},
) {
  const workers = await startWorkers()
  try {
    const photo = await smallPhoto()
    const users = await Promise.all(Array.from({ length: userCount }, () => signedInUser(db, 1_000_000)))
    const started = performance.now()
    const ids: string[] = []
    let submitting = true
    const emails = options.emailsTo ? measureEmails(db, options.emailsTo, () => submitting) : null
    await Promise.all(
      users.map(async ({ token }) => {
        for (let own = 0; own < tasks / userCount;) {
          const { status, body } = await postGeneration(webUrl, token, photo)
          if (status === 200 && body.taskId) {
            ids.push(body.taskId)
            own += 1
          } else if (status === 429) {
            await new Promise((resolve) => setTimeout(resolve, 1_000))
          } else {
            throw new Error(`submission failed (${status}): ${body.message}`)
          }
        }
      }),
    )
    await waitUntilFinished(db, ids)
    const finishedAt = Date.now()
    submitting = false
    const minutes = (performance.now() - started) / 60_000
    const { count } = await db
      .selectFrom('generation_tasks')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('id', 'in', ids)
      .where('status', '=', 'failed')
      .executeTakeFirstOrThrow()
    return { perMinute: ids.length / minutes, finishedAt, failed: Number(count), emailMs: (await emails) ?? [] }
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()))
  }
}

async function measureEmails(db: DB, outbox: string, going: () => boolean) {
  const latencies: number[] = []
  const delivered = () => {
    try {
      return readdirSync(outbox).length
    } catch {
      return 0
    }
  }
  while (going()) {
    const before = delivered()
    const sentAt = performance.now()
    await queueEmail(db, { to: 'new-user@example.com', subject: 'Your sign-up code', text: 'Your code is 123456' })
    while (delivered() === before && performance.now() - sentAt < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    latencies.push(performance.now() - sentAt)
    await new Promise((resolve) => setTimeout(resolve, EMAIL_EVERY_MS))
  }
  return latencies.sort((a, b) => a - b)
}
