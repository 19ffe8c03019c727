import type { TaskView } from '#domain/generation/task-view.ts'
import { closeDb } from '#platform/db.server.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { readEventStream } from '#tests/helpers/event-stream.ts'
import { balanceAndLedgerSum, petPhoto, photoFile, taskRow, withOwnDataDir } from '#tests/helpers/generation.ts'
import { startOwnDatabase } from '#tests/helpers/own-database.ts'
import { startWebProcess } from '#tests/helpers/web-process.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

// A database that hangs: every PostgreSQL process stopped (SIGSTOP), connections still accepted by
// the kernel, nothing answered. Its own server, so that freezing it disturbs no other test file.
withOwnDataDir()
const database = await startOwnDatabase('hang')
const openai = await startOpenAiFake({ latencyMs: 3_000 })
const web = await startWebProcess()
const worker = startWorker({
  IMAGE_PROVIDER: 'openai',
  OPENAI_BASE_URL: openai.baseUrl,
  OPENAI_API_KEY: openai.apiKey,
})
await worker.ready()

afterAll(async () => {
  database.thaw()
  await Promise.all([web.stop(), worker.stop()])
  await openai.close()
  await closeDb()
  await database.remove()
})

const api = (path: string, init?: RequestInit) => fetch(web.origin + path, init)

test('a database that hangs: /api answers 503 within 5 s, then serves again; the worker and a live stream carry on', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  // Bounded, so that a request that hangs fails the test rather than its timeout.
  const me = () => api('/api/auth/me', { headers: { 'x-auth-token': token }, signal: AbortSignal.timeout(8_000) })
  expect((await me()).status).toBe(200)
  const stream = readEventStream(await api('/api/tasks/events', { headers: { 'x-auth-token': token } }))
  const form = new FormData()
  form.append('images', photoFile(await petPhoto()))
  form.append('style', 'general')
  const submitted = await api('/api/async-image/generate', {
    method: 'POST',
    headers: { 'x-auth-token': token },
    body: form,
  })
  expect(submitted.status).toBe(200)
  const { taskId } = (await submitted.json()) as { taskId: string }
  // The provider is drawing (3 s): the database stops answering now.
  await waitFor(() => openai.requests.length === 1, { timeout: 15_000 })
  database.freeze()
  try {
    for (let round = 0; round < 3; round++) {
      const started = Date.now()
      const response = await me()
      const ms = Date.now() - started
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBe('5')
      expect(((await response.json()) as { message: string }).message).toMatch(/briefly unavailable/)
      expect(ms).toBeLessThan(5_000)
    }
  } finally {
    database.thaw()
  }
  await waitFor(async () => (await me()).status === 200, { timeout: 10_000, interval: 200 })
  // The job waited for the database and went on: the answer it got is used, paid for once.
  await waitFor(async () => (await taskRow(taskId)).status === 'completed', { timeout: 30_000, interval: 200 })
  expect(openai.requests).toHaveLength(1)
  const { balance, ledgerSum } = await balanceAndLedgerSum(user.id)
  expect(balance).toBe(ledgerSum)
  expect(balance).toBe(8)
  // The stream opened before the freeze hears the completion made after it.
  const completed = await stream.waitForEvent(
    (event) => event.event === 'task' && (JSON.parse(event.data) as TaskView).status === 'completed',
  )
  expect((JSON.parse(completed.data) as TaskView).id).toBe(taskId)
  await stream.close()
  expect(worker.child.exitCode).toBeNull()
}, 90_000)
