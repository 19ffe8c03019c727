import { registerDatabaseMetrics } from '../../server/database-metrics.ts'
import { loader as statusLoader } from '#app/routes/system-status.tsx'
import { loader as taskLoader } from '#app/routes/api.async-image.task.$id.ts'
import { getDb } from '#platform/db.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { freePort } from '../../scripts/embedded-postgres.ts'
import { startGeminiFake } from '#tests/fakes/gemini.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { startSmtpCatcher } from '#tests/fakes/smtp.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { petPhoto, photoFile, submitGeneration, taskRow, withOwnDataDir } from '#tests/helpers/generation.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'
import { withMaker } from '#tests/helpers/made-by.ts'

// The real worker process with IMAGE_PROVIDERS=openai,gemini against both fakes, a short stall
// time and a breaker that opens after two failures; the web side's routes run in this process.
withOwnDataDir()
const OWNER = 'owner-of-the-shop@pawtrait.test'
const db = getDb()
const openai = await startOpenAiFake()
const gemini = await startGeminiFake()
const smtp = await startSmtpCatcher()
const metricsPort = await freePort()
const worker = startWorker({
  IMAGE_PROVIDERS: 'openai,gemini',
  OPENAI_BASE_URL: openai.baseUrl,
  OPENAI_API_KEY: openai.apiKey,
  GEMINI_BASE_URL: gemini.baseUrl,
  GEMINI_API_KEY: gemini.apiKey,
  PROVIDER_STALL_MS: '400',
  PROVIDER_BREAKER_FAILURES: '2',
  PROVIDER_BREAKER_COOLDOWN_MS: '600000',
  OWNER_EMAIL: OWNER,
  SMTP_URL: smtp.url,
  WORKER_METRICS_PORT: String(metricsPort),
})
registerDatabaseMetrics(getMetrics(), db)

beforeAll(() => worker.ready())
afterAll(async () => {
  await worker.stop()
  await Promise.all([openai.close(), gemini.close(), smtp.close()])
})

async function generated(token: string) {
  const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
  const taskId = body.taskId as string
  return waitFor(
    async () => {
      const row = await taskRow(taskId)
      return row.status === 'completed' || row.status === 'failed' ? withMaker(row) : null
    },
    { timeout: 15_000, interval: 100 },
  )
}

async function sample(text: string, name: string) {
  const line = text.split('\n').find((entry) => entry.startsWith(`${name} `))
  return line === undefined ? undefined : Number(line.split(' ').at(-1))
}

test('a stall and a 503 move versions to Gemini; the breaker opens, skips OpenAI, and operators see it all', async () => {
  // Each task another user's: a breaker counts failing users, one user's tasks at most once.
  const token = async () => (await createTestUser({ credits: 10 })).token

  openai.setMode('hang')
  const stalledBy = await token()
  const stalled = await generated(stalledBy)
  expect(stalled).toMatchObject({ status: 'completed', madeBy: 'gemini', model: 'gemini-3.1-flash-image' })

  openai.setMode('unavailable')
  expect(await generated(await token())).toMatchObject({ status: 'completed', madeBy: 'gemini' })
  const calls = openai.requests.length
  expect(calls).toBe(2)
  expect(await generated(await token())).toMatchObject({ status: 'completed', madeBy: 'gemini' })
  expect(openai.requests.length).toBe(calls)

  // The task answer names who made it (the result panel's small print).
  const answer = await callRoute(taskLoader, makeRequest(`/api/async-image/task/${stalled.id}`, { token: stalledBy }), {
    id: stalled.id,
  })
  expect((await answer.json()).images).toMatchObject([
    { index: 0, provider: 'gemini', model: 'gemini-3.1-flash-image' },
  ])

  // The worker's metrics count the failovers by reason; the web's read each breaker's state.
  const workerMetrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
  for (const reason of ['stall', 'retryable', 'breaker_open']) {
    expect(
      await sample(workerMetrics, `pawtrait_provider_failovers_total{from="openai",to="gemini",reason="${reason}"}`),
    ).toBe(1)
  }
  const webMetrics = await getMetrics().registry.metrics()
  expect(await sample(webMetrics, 'pawtrait_provider_breaker_state{provider="openai"}')).toBe(2)
  expect(await sample(webMetrics, 'pawtrait_provider_breaker_state{provider="gemini"}')).toBe(0)

  // /system-status shows each breaker's state and last error.
  const admin = await createTestUser({ role: 'superadmin' })
  const status = await (await callRoute(statusLoader, makeRequest('/system-status', { token: admin.token }))).json()
  expect(status.breakers).toEqual([
    expect.objectContaining({ provider: 'gemini', state: 'closed' }),
    expect.objectContaining({
      provider: 'openai',
      state: 'open',
      openReason: 'retryable',
      lastError: 'OpenAI is temporarily unavailable (HTTP 503).',
    }),
  ])
  // Opened for 5xx: no email to the owner (that is for quota, billing and keys).
  expect(smtp.messages.filter((mail) => mail.subject?.includes('switched off'))).toHaveLength(0)
}, 60_000)

test('a breaker opened for a refused key emails OWNER_EMAIL through the email job, once', async () => {
  const { token } = await createTestUser({ credits: 10 })
  gemini.setMode('forbidden')
  await db.deleteFrom('provider_breakers').where('provider', '=', 'openai').execute()
  openai.setMode('unavailable')
  // OpenAI fails (counted), Gemini refuses the key: its breaker opens at once and the owner is told.
  expect(await generated(token)).toMatchObject({ status: 'failed', error: expect.stringMatching(/credentials/) })
  const mail = await smtp.waitForMessage(
    OWNER,
    'Pawtrait: image provider gemini is switched off (quota, billing or key)',
  )
  expect(mail.text).toMatch(/HTTP 403/)
  // The next task finds Gemini's breaker open (and OpenAI's opening): it waits, and no second email.
  const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
  await waitFor(async () => (await taskRow(body.taskId as string)).waited_ms > 0, { timeout: 15_000 })
  await new Promise((resolve) => setTimeout(resolve, 500))
  expect(smtp.messages.filter((message) => message.subject?.includes('gemini is switched off'))).toHaveLength(1)
}, 60_000)
