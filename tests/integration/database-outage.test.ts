import { sql } from 'kysely'
import { registerDatabaseMetrics } from '../../server/database-metrics.ts'
import { closeDb, getDb } from '#platform/db.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { balanceAndLedgerSum, petPhoto, photoFile, taskRow, withOwnDataDir } from '#tests/helpers/generation.ts'
import { startOwnDatabase } from '#tests/helpers/own-database.ts'
import { freePort } from '../../scripts/embedded-postgres.ts'
import { startWebServer } from '#tests/helpers/web-server.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

// A PostgreSQL of this file's own, so that taking it away disturbs no other test file.
withOwnDataDir()
const database = await startOwnDatabase('outage')
const openai = await startOpenAiFake({ latencyMs: 2_000 })
const web = await startWebServer()
registerDatabaseMetrics(getMetrics(), getDb())
const workerEnv = {
  IMAGE_PROVIDER: 'openai',
  OPENAI_BASE_URL: openai.baseUrl,
  OPENAI_API_KEY: openai.apiKey,
  IMAGE_CONCURRENCY: '6',
}
const PASSWORD = 'outage-password-1'
const CREDITS = 20
const COST = 2

const api = (path: string, init?: RequestInit) => fetch(web.origin + path, init)

/** POST /api/async-image/generate over HTTP, as a client would. */
function submitPortrait(token: string, photo: Buffer) {
  const form = new FormData()
  form.append('images', photoFile(photo))
  form.append('style', 'general')
  return api('/api/async-image/generate', { method: 'POST', headers: { 'x-auth-token': token }, body: form })
}

afterAll(async () => {
  await web.close()
  await openai.close()
  await closeDb()
  await database.remove()
})

/** Users who each submit `perUser` portraits through the web's /api (the active-task limit is 5). */
async function submitTasks(users: number, perUser: number) {
  const photo = await petPhoto()
  const submitted: { userId: string; token: string; email: string; taskIds: string[] }[] = []
  for (let u = 0; u < users; u++) {
    const email = `outage-${u}-${Date.now()}@example.com`
    const { user, token } = await createTestUser({ credits: CREDITS, email, password: PASSWORD })
    const taskIds: string[] = []
    for (let i = 0; i < perUser; i++) {
      const response = await submitPortrait(token, photo)
      expect(response.status).toBe(200)
      taskIds.push(((await response.json()) as { taskId: string }).taskId)
    }
    submitted.push({ userId: user.id, token, email, taskIds })
  }
  return submitted
}

/** Every task completed, the provider asked once per task, every balance equal to its ledger. */
async function expectSettledExactly(submitted: Awaited<ReturnType<typeof submitTasks>>) {
  const taskIds = submitted.flatMap((user) => user.taskIds)
  const rows = await Promise.all(taskIds.map(taskRow))
  expect(rows.map((row) => row.status)).toEqual(taskIds.map(() => 'completed'))
  expect(openai.requests).toHaveLength(taskIds.length)
  for (const user of submitted) {
    const { balance, ledgerSum } = await balanceAndLedgerSum(user.userId)
    expect(balance).toBe(ledgerSum)
    expect(balance).toBe(CREDITS - COST * user.taskIds.length)
  }
}

const allCompleted = async (submitted: Awaited<ReturnType<typeof submitTasks>>) => {
  const rows = await Promise.all(submitted.flatMap((user) => user.taskIds).map(taskRow))
  return rows.every((row) => row.status === 'completed')
}

const outageLines = (output: string[]) =>
  output
    .join('')
    .split('\n')
    .filter((line) => line.includes('database unreachable'))

test('an immediate database shutdown under load: no process dies, /api answers 503 meanwhile, every task completes once', async () => {
  openai.requests.length = 0
  const metricsPort = await freePort()
  const workers = [startWorker({ ...workerEnv, WORKER_METRICS_PORT: String(metricsPort) }), startWorker(workerEnv)]
  const workerPort = (path: string) => fetch(`http://127.0.0.1:${metricsPort}${path}`)
  try {
    await Promise.all(workers.map((worker) => worker.ready()))
    const submitted = await submitTasks(4, 3)
    // Some provider calls are under way (they take 2 s): now the database goes.
    await waitFor(() => openai.requests.length >= 4, { timeout: 15_000 })
    await database.kill()

    const [user] = submitted
    const outageAnswers: { what: string; status: number; retryAfter: string | null; ms: number }[] = []
    const probe = async (what: string, call: () => Promise<Response>) => {
      const started = Date.now()
      const response = await call()
      const body = (await response.json()) as { message?: string }
      outageAnswers.push({
        what,
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        ms: Date.now() - started,
      })
      expect(body.message).toMatch(/briefly unavailable/)
    }
    const photo = await petPhoto('#406080')
    for (let round = 0; round < 3; round++) {
      await probe('me', () => api('/api/auth/me', { headers: { 'x-auth-token': user.token } }))
      await probe('login', () =>
        api('/api/auth/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: user.email, password: PASSWORD }),
        }),
      )
      await probe('generate', () => submitPortrait(user.token, photo))
      await new Promise((resolve) => setTimeout(resolve, 1_500))
    }
    for (const answer of outageAnswers) {
      expect(answer, answer.what).toMatchObject({ status: 503, retryAfter: '5' })
      expect(answer.ms, answer.what).toBeLessThan(5_000)
    }
    for (const worker of workers) expect(worker.child.exitCode).toBeNull()
    // The worker's operator port: alive, not ready, and its metrics say why.
    expect((await workerPort('/healthz')).status).toBe(200)
    const notReady = await workerPort('/readyz')
    expect(notReady.status).toBe(503)
    expect(await notReady.json()).toMatchObject({ checks: { database: 'failed', storage: 'ok' } })
    expect(await (await workerPort('/metrics')).text()).toMatch(/^pawtrait_database_unreachable 1$/m)
    // The web's scrape still works, and says so.
    expect(await getMetrics().registry.metrics()).toMatch(/^pawtrait_database_unreachable 1$/m)

    await database.start()
    const back = Date.now()
    await waitFor(
      async () => (await Promise.all(submitted[0].taskIds.map(taskRow))).some((row) => row.status === 'completed'),
      {
        timeout: 10_000,
        interval: 200,
      },
    )
    expect(Date.now() - back).toBeLessThan(10_000)
    // The target is the first completion (above); the rest only has to finish, on a machine that may be busy.
    // A job whose end could not be written during the outage is handed on by the minute's recovery
    // once its task has been silent TASK_STALL_MS (60 s): up to two minutes.
    await waitFor(() => allCompleted(submitted), { timeout: 125_000, interval: 250 })

    await expectSettledExactly(submitted)
    expect((await api('/api/auth/me', { headers: { 'x-auth-token': user.token } })).status).toBe(200)
    expect(await getMetrics().registry.metrics()).toMatch(/^pawtrait_database_unreachable 0$/m)
    for (const worker of workers) {
      expect(worker.child.exitCode, worker.output.join('')).toBeNull()
      expect(worker.child.signalCode).toBeNull()
      // Logged once for the outage, not once per failed query or reconnect.
      expect(outageLines(worker.output)).toHaveLength(1)
    }
  } finally {
    await database.start()
    await Promise.all(workers.map((worker) => worker.stop()))
  }
}, 240_000)

test('a deploy: SIGTERM to the worker while image jobs run, a new worker started; nothing lost, nothing paid twice', async () => {
  openai.requests.length = 0
  const old = startWorker({ ...workerEnv, IMAGE_CONCURRENCY: '3' })
  let replacement: ReturnType<typeof startWorker> | undefined
  try {
    await old.ready()
    const submitted = await submitTasks(2, 4)
    await waitFor(() => openai.requests.length >= 3, { timeout: 15_000 })
    const exited = old.stop('SIGTERM')
    replacement = startWorker(workerEnv)
    // The old worker finishes what it runs (its provider answers are not thrown away), then leaves.
    expect(await exited).toBe(0)
    await waitFor(() => allCompleted(submitted), { timeout: 60_000, interval: 250 })
    await expectSettledExactly(submitted)
  } finally {
    await old.stop()
    await replacement?.stop()
    await sql`DELETE FROM graphile_worker._private_jobs`.execute(getDb())
  }
}, 120_000)
