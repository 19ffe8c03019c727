import { registerDatabaseMetrics } from '../../server/database-metrics.ts'
import { listLiveWorkers } from '#domain/operator/worker-processes.server.ts'
import { getDb } from '#platform/db.server.ts'
import { initLogging } from '#platform/logger.server.ts'
import { startMetricsServer } from '#platform/metrics-server.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { freePort } from '../../scripts/embedded-postgres.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { codeFrom, startSmtpCatcher } from '#tests/fakes/smtp.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { petPhoto, taskRow, withOwnDataDir } from '#tests/helpers/generation.ts'
import { startWebServer } from '#tests/helpers/web-server.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

// The web side runs in this process (its log lines collected here, its metrics on a port of its
// own); the worker is the real process with its metrics port, calling a local OpenAI fake, and
// mailing through a local SMTP server.
withOwnDataDir()
process.env.EMAIL_VERIFICATION = 'on'
const webLines: string[] = []
const logger = initLogging('web', { write: (line: string) => void webLines.push(line) })

const openai = await startOpenAiFake()
const smtp = await startSmtpCatcher()
const workerPort = await freePort()
const webMetricsPort = await freePort()
const worker = startWorker({
  IMAGE_PROVIDER: 'openai',
  OPENAI_BASE_URL: openai.baseUrl,
  OPENAI_API_KEY: openai.apiKey,
  SMTP_URL: smtp.url,
  WORKER_METRICS_PORT: String(workerPort),
})
registerDatabaseMetrics(getMetrics(), getDb())
const webMetrics = startMetricsServer(webMetricsPort)
const web = await startWebServer({}, { logger, metrics: getMetrics() })

beforeAll(() => worker.ready())
afterAll(async () => {
  await worker.stop()
  await Promise.all([web.close(), webMetrics.stop(), openai.close(), smtp.close()])
})

type LogLine = Record<string, unknown> & { msg?: string; reqId?: string }
const parse = (lines: string[]): LogLine[] => lines.map((line) => JSON.parse(line) as LogLine)
const workerLines = () =>
  parse(
    worker.output
      .join('')
      .split('\n')
      .filter((line) => line.trim()),
  )

async function submit(token: string, headers: Record<string, string> = {}) {
  const form = new FormData()
  form.append('images', new File([new Uint8Array(await petPhoto())], 'pet.jpg', { type: 'image/jpeg' }))
  form.append('style', 'general')
  const response = await fetch(`${web.origin}/api/async-image/generate`, {
    method: 'POST',
    headers: { 'x-auth-token': token, ...headers },
    body: form,
  })
  const body = (await response.json()) as { taskId: string }
  expect(response.status).toBe(200)
  return { taskId: body.taskId, requestId: response.headers.get('x-request-id') ?? '' }
}

const finished = (taskId: string) =>
  waitFor(
    async () => {
      const row = await taskRow(taskId)
      return row.status === 'completed' || row.status === 'failed' ? row : null
    },
    { timeout: 20_000, interval: 100 },
  )

async function scrape(port: number, path = '/metrics') {
  const response = await fetch(`http://127.0.0.1:${port}${path}`)
  return { status: response.status, text: await response.text() }
}

/** The value of one sample line, e.g. `pawtrait_queue_depth{kind="image"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

const uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/

describe('after a generation (behind one 429), a failure and a refusal', () => {
  const submitted: Array<{ taskId: string; requestId: string }> = []

  beforeAll(async () => {
    const { token } = await createTestUser({ credits: 10 })
    openai.setMode('rate_limit_once')
    submitted.push(await submit(token))
    expect((await finished(submitted[0].taskId)).status).toBe('completed')
    openai.setMode('malformed')
    submitted.push(await submit(token, { 'fly-request-id': '01JD3QZ8K4EXAMPLE-fra' }))
    expect((await finished(submitted[1].taskId)).status).toBe('failed')
    openai.setMode('moderation')
    submitted.push(await submit(token))
    expect((await finished(submitted[2].taskId)).error).toContain('content rules')
  }, 40_000)

  test("the request's id is answered, logged with the request, carried in the job and logged by the worker", async () => {
    const [generated, fromFly] = submitted
    expect(generated.requestId).toMatch(uuidPattern)
    expect(fromFly.requestId).toBe('01JD3QZ8K4EXAMPLE-fra')

    for (const { requestId } of submitted) {
      expect(parse(webLines)).toContainEqual(
        expect.objectContaining({
          msg: 'request',
          process: 'web',
          reqId: requestId,
          method: 'POST',
          route: '/api/async-image/generate',
          path: '/api/async-image/generate',
          status: 200,
        }),
      )
      const jobLines = workerLines().filter((line) => line.reqId === requestId)
      expect(jobLines).toContainEqual(
        expect.objectContaining({ process: 'worker', msg: 'job generate_image started', job: 'generate_image' }),
      )
    }
    // The refused task's failure is logged by the worker under its request's id too.
    const refusal = workerLines().find((line) => line.reqId === submitted[2].requestId && line.level === 50)
    expect(refusal?.msg).toContain('content rules')
  })

  test("the worker's /metrics counts outcomes, durations and provider answers, with bounded labels", async () => {
    const { status, text } = await scrape(workerPort)
    expect(status).toBe(200)
    const image = 'kind="image",provider="openai"'
    expect(sample(text, `pawtrait_tasks_finished_total{${image},outcome="completed"}`)).toBe(1)
    expect(sample(text, `pawtrait_tasks_finished_total{${image},outcome="failed"}`)).toBe(1)
    expect(sample(text, `pawtrait_tasks_finished_total{${image},outcome="refused"}`)).toBe(1)
    expect(sample(text, `pawtrait_task_duration_seconds_count{${image}}`)).toBe(3)
    expect(sample(text, `pawtrait_task_queue_wait_seconds_count{${image}}`)).toBe(3)
    expect(sample(text, 'pawtrait_provider_requests_total{provider="openai",status="429"}')).toBe(1)
    // Two image edits answered 200, and so did the worker's start-up check (GET /v1/models/{model}).
    expect(sample(text, 'pawtrait_provider_requests_total{provider="openai",status="200"}')).toBe(3)
    expect(sample(text, 'pawtrait_provider_requests_total{provider="openai",status="400"}')).toBe(1)
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter')
    expect(text).toContain('nodejs_eventloop_lag_seconds')
    expect(text).not.toMatch(uuidPattern)
  })

  test("the web's /metrics has the request histogram by route pattern and the database's figures", async () => {
    const { status, text } = await scrape(webMetricsPort)
    expect(status).toBe(200)
    const route = 'method="POST",route="/api/async-image/generate",status="200"'
    expect(sample(text, `http_request_duration_seconds_count{${route}}`)).toBe(3)
    expect(sample(text, 'pawtrait_tasks_submitted_total{kind="image"}')).toBe(3)
    expect(sample(text, 'pawtrait_queue_depth{kind="image"}')).toBe(0)
    expect(sample(text, 'pawtrait_tasks_running{kind="image"}')).toBe(0)
    expect(sample(text, 'pawtrait_credits_total{type="spent"}')).toBe(6)
    expect(sample(text, 'pawtrait_credits_total{type="refunded"}')).toBe(4)
    expect(sample(text, 'pawtrait_payment_proofs{status="pending"}')).toBe(0)
    expect(text).toContain('# TYPE pawtrait_credits_total counter')
    expect(text).not.toMatch(uuidPattern)
  })

  test('both metrics ports answer /healthz and /readyz (database and storage)', async () => {
    for (const port of [workerPort, webMetricsPort]) {
      expect(await scrape(port, '/healthz')).toEqual({ status: 200, text: 'ok' })
      const ready = await scrape(port, '/readyz')
      expect(ready.status).toBe(200)
      expect(JSON.parse(ready.text)).toEqual({ ready: true, checks: { database: 'ok', storage: 'ok' } })
    }
    expect((await scrape(workerPort, '/nothing')).status).toBe(404)
  })

  test('the worker marks itself alive for the status page', async () => {
    const live = await listLiveWorkers(getDb())
    // Its image lane's slots: 16 by default with a remote provider (WORKER_CONCURRENCY, 2, is the email lane's).
    expect(live).toContainEqual(expect.objectContaining({ pid: worker.child.pid, concurrency: 16 }))
  })
})

test('no password, session token, email code or API key appears in any log line', async () => {
  const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
    fetch(`${web.origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(json),
    })
  const email = 'secretive@example.com'
  const password = 'Tr0ub4dor-and-3'
  const newPassword = 'correct-horse-battery-9'

  expect((await post('/api/auth/send-verification-code', { email })).status).toBe(200)
  const registrationCode = codeFrom(await smtp.waitForMessage(email))
  const registered = await post('/api/auth/register', {
    name: 'Secretive',
    email,
    password,
    verificationCode: registrationCode,
  })
  expect(registered.status).toBe(201)
  const { token } = (await (await post('/api/auth/login', { email, password })).json()) as { token: string }
  expect(token).toBeTruthy()
  // Tokens in headers and in a query string (as in links from emails) stay out of the log.
  const meAnswer = await fetch(`${web.origin}/api/auth/me?token=${token}&code=${registrationCode}`, {
    headers: { 'x-auth-token': token },
  })
  expect(meAnswer.status).toBe(200)
  // A failed login, as an attacker would try.
  expect((await post('/api/auth/login', { email, password: 'wrong-Guess-42' })).status).toBe(401)

  expect((await post('/api/auth/forgot-password', { email })).status).toBe(200)
  const resetCode = codeFrom(await smtp.waitForMessage(email, 'Your Pawtrait password reset code'))
  const reset = await post('/api/auth/reset-password', {
    email,
    verificationCode: resetCode,
    password: newPassword,
    confirmPassword: newPassword,
  })
  expect(reset.status).toBe(200)
  await waitFor(() => workerLines().filter((line) => String(line.msg).includes(email)).length >= 2)

  const everything = [...webLines, ...worker.output].join('\n')
  expect(everything).toContain('/api/auth/me') // the requests were logged
  for (const secret of [password, newPassword, 'wrong-Guess-42', token, registrationCode, resetCode, openai.apiKey]) {
    expect(everything).not.toContain(secret)
  }
})
