import { DEFAULT_POOL_SIZE, getPool } from '#platform/db.server.ts'
import { initLogging } from '#platform/logger.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { startFakeS3 } from '#tests/fakes/s3.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { balanceAndLedgerSum, creditsOf, petPhoto, photoFile, refundsOf, taskRow } from '#tests/helpers/generation.ts'
import { startWebServer } from '#tests/helpers/web-server.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'
import { freePort } from '../../scripts/embedded-postgres.ts'

/**
 * Failures that are not the database's, which must never be taken for its outage (decision 0023):
 * a provider host refusing connections, media storage resetting them, a pool whose every
 * connection is busy. Media lives in a fake S3 here, for the web and the worker alike.
 */
const s3 = await startFakeS3()
Object.assign(process.env, {
  STORAGE_DRIVER: 's3',
  S3_BUCKET: 'media',
  S3_ENDPOINT: s3.endpoint,
  S3_FORCE_PATH_STYLE: 'true',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
})
const webLines: string[] = []
initLogging('web', { write: (line: string) => void webLines.push(line) })
const web = await startWebServer()

afterAll(async () => {
  await web.close()
  await s3.close()
})

const api = (path: string, init?: RequestInit) => fetch(web.origin + path, init)

async function submitPortrait(token: string) {
  const form = new FormData()
  form.append('images', photoFile(await petPhoto()))
  form.append('style', 'general')
  return api('/api/async-image/generate', { method: 'POST', headers: { 'x-auth-token': token }, body: form })
}

const metric = async (name: 'databaseUnreachable' | 'databaseOutages' | 'databasePoolExhausted') =>
  (await getMetrics()[name].get()).values[0]?.value ?? 0

/** A TASK_MAX_WAIT_MS short enough for a test. */
const MAX_WAIT_MS = 5_000

test('a provider host refusing connections: waited for with doubling waits, then failed and refunded once; no database outage', async () => {
  const metricsPort = await freePort()
  const worker = startWorker({
    IMAGE_PROVIDER: 'openai',
    // Nothing listens there: every call is refused at once.
    OPENAI_BASE_URL: `http://127.0.0.1:${await freePort()}/v1`,
    OPENAI_API_KEY: 'sk-test-nobody-listens',
    TASK_MAX_WAIT_MS: String(MAX_WAIT_MS),
    WORKER_METRICS_PORT: String(metricsPort),
  })
  try {
    await worker.ready()
    const { user, token } = await createTestUser({ credits: 10 })
    const submitted = Date.now()
    const response = await submitPortrait(token)
    expect(response.status).toBe(200)
    const { taskId } = (await response.json()) as { taskId: string }

    await waitFor(async () => (await taskRow(taskId)).status === 'failed', { timeout: 30_000, interval: 100 })
    // The waits add up to at most TASK_MAX_WAIT_MS; each run may also wait for the worker's 1 s poll.
    expect(Date.now() - submitted).toBeLessThan(MAX_WAIT_MS + 10_000)
    const row = await taskRow(taskId)
    expect(row.error).toBe('OpenAI could not be reached.')
    // One provider call a run. Waits of 1 s, then as long again as waited so far (each plus up to
    // 1 s of jitter): 1-2 s, 2-5 s in all, then 4-11 s, which passes 5 s on the third or fourth run.
    expect(row.attempts).toBeGreaterThanOrEqual(3)
    expect(row.attempts).toBeLessThanOrEqual(4)
    expect(await refundsOf(taskId)).toHaveLength(1)
    expect(await creditsOf(user.id)).toBe(10)
    const { balance, ledgerSum } = await balanceAndLedgerSum(user.id)
    expect(balance).toBe(ledgerSum)

    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
    expect(metrics).toMatch(/^pawtrait_database_unreachable 0$/m)
    expect(metrics).toMatch(/^pawtrait_database_outages_total 0$/m)
    // The task's calls, and the start-up check of the key.
    const refused = /^pawtrait_provider_requests_total\{provider="openai",status="network"\} (\d+)$/m.exec(metrics)
    expect(Number(refused?.[1])).toBeLessThanOrEqual(row.attempts + 1)
    expect(worker.output.join('')).not.toContain('database unreachable')
    expect(worker.child.exitCode).toBeNull()
  } finally {
    await worker.stop()
  }
}, 60_000)

test('media storage resetting connections: the web answers 503 naming storage, and notes no database outage', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  const outages = await metric('databaseOutages')
  webLines.length = 0
  // More than the S3 client's own three tries.
  s3.resetNextRequests(1000)
  try {
    const response = await submitPortrait(token)
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('5')
    expect(await response.json()).toEqual({
      message: 'Media storage is briefly unavailable. Please try again in a few seconds.',
    })
  } finally {
    s3.resetNextRequests(0)
  }
  expect(await creditsOf(user.id)).toBe(10)
  expect(await metric('databaseUnreachable')).toBe(0)
  expect(await metric('databaseOutages')).toBe(outages)
  const log = webLines.join('')
  expect(log).toContain('media storage unavailable')
  expect(log).not.toContain('database unreachable')
  // Storage back, the same request goes through.
  expect((await submitPortrait(token)).status).toBe(200)
})

test('every pooled connection busy: a 503 within the pool timeout, counted as a full pool, not as an outage', async () => {
  const { token } = await createTestUser({ credits: 10 })
  const me = () => api('/api/auth/me', { headers: { 'x-auth-token': token } })
  const [exhausted, outages] = [await metric('databasePoolExhausted'), await metric('databaseOutages')]
  const held = await Promise.all(Array.from({ length: DEFAULT_POOL_SIZE }, () => getPool().connect()))
  try {
    const started = Date.now()
    const response = await me()
    expect(response.status).toBe(503)
    // The pool's connection timeout (5 s) bounds the wait for a free connection.
    expect(Date.now() - started).toBeLessThan(7_000)
    expect(response.headers.get('retry-after')).toBe('5')
    expect(await response.json()).toEqual({ message: expect.stringMatching(/briefly unavailable/) })
  } finally {
    for (const client of held) client.release()
  }
  expect(await metric('databasePoolExhausted')).toBeGreaterThan(exhausted)
  expect(await metric('databaseUnreachable')).toBe(0)
  expect(await metric('databaseOutages')).toBe(outages)
  expect((await me()).status).toBe(200)
})
