import fs from 'node:fs'
import path from 'node:path'
import { sql } from 'kysely'
import { getDb } from '#platform/db.server.ts'
import { queueEmail } from '#platform/email.server.ts'
import { startOpenAiFake, type OpenAiFake } from '#tests/fakes/openai.ts'
import { mostInAnyWindow } from '#tests/fakes/image-api-fake.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { petPhoto, photoFile, submitGeneration, taskRow, withOwnDataDir } from '#tests/helpers/generation.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

const media = withOwnDataDir()
const db = getDb()

async function submitImages(count: number) {
  const { token } = await createTestUser({ credits: 100 })
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const { status, body } = await submitGeneration(token, [photoFile(await petPhoto())])
    expect(status).toBe(200)
    ids.push(body.taskId)
  }
  return ids
}

test('a sign-up code email leaves within 2 s while every image slot is busy', async () => {
  const worker = startWorker({
    IMAGE_PROVIDER: 'instant',
    INSTANT_PROVIDER_DELAY_MS: '5000',
    IMAGE_CONCURRENCY: '2',
    WORKER_SHUTDOWN_GRACE_MS: '200',
  })
  try {
    await worker.ready()
    const ids = await submitImages(3)
    await waitFor(
      async () => (await Promise.all(ids.map(taskRow))).filter((row) => row.status === 'processing').length === 2,
    )

    const outbox = path.join(media.dir, 'outbox')
    const sentAt = Date.now()
    await queueEmail(db, { to: 'new-user@example.com', subject: 'Your sign-up code', text: 'Your code is 123456' })
    await waitFor(() => fs.existsSync(outbox) && fs.readdirSync(outbox).length > 0, { timeout: 5_000, interval: 20 })
    expect(Date.now() - sentAt).toBeLessThan(2_000)
    // The generation slots were still all busy meanwhile.
    expect((await Promise.all(ids.map(taskRow))).filter((row) => row.status === 'processing')).toHaveLength(2)
  } finally {
    await worker.stop()
    // The portraits still queued are no concern of the next test's workers.
    await sql`DELETE FROM graphile_worker._private_jobs`.execute(db)
  }
}, 60_000)

describe('two worker processes sharing one rate limit', () => {
  let fake: OpenAiFake
  beforeAll(async () => {
    fake = await startOpenAiFake({ rpm: 3 })
  })
  afterAll(() => fake.close())

  test('the provider never sees more than IMAGE_PROVIDER_RPM; the rest wait, queued, for room', async () => {
    const env = {
      IMAGE_PROVIDER: 'openai',
      OPENAI_API_KEY: fake.apiKey,
      OPENAI_BASE_URL: fake.baseUrl,
      IMAGE_PROVIDER_RPM: '3',
      IMAGE_CONCURRENCY: '4',
    }
    const workers = [startWorker(env), startWorker(env)]
    try {
      await Promise.all(workers.map((worker) => worker.ready()))
      const ids = [...(await submitImages(4)), ...(await submitImages(4))]

      const rows = await waitFor(
        async () => {
          const current = await Promise.all(ids.map(taskRow))
          const completed = current.filter((row) => row.status === 'completed')
          const waiting = current.filter((row) => row.status === 'queued' && row.waited_ms > 0)
          return completed.length === 3 && waiting.length === 5 ? current : null
        },
        { timeout: 20_000 },
      )
      // A moment more: nothing else goes out within the minute.
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      expect(fake.arrivals).toHaveLength(3)
      expect(mostInAnyWindow(fake.arrivals)).toBeLessThanOrEqual(3)
      expect(fake.rateLimited()).toBe(0)
      expect(rows.filter((row) => row.status === 'failed')).toHaveLength(0)
      const logs = workers.map((worker) => worker.output.join(''))
      expect(logs.some((log) => log.includes('Waiting for room at openai'))).toBe(true)
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()))
    }
  }, 60_000)
})
