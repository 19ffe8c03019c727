import { getDb } from '#platform/db.server.ts'
import { initLogging } from '#platform/logger.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { startWebProcess } from '#tests/helpers/web-process.ts'
import { startWebServer } from '#tests/helpers/web-server.ts'
import { freePort } from '../../scripts/embedded-postgres.ts'

// A GET under /api is answered by its route's loader on Node's own request and response, before
// Express (server/app.ts, server/api-router.ts `answerRead`): what Express's layers gave every
// answer must still be there.

const lines: Array<Record<string, unknown>> = []
const logger = initLogging('web', { write: (line: string) => void lines.push(JSON.parse(line)) })
const server = await startWebServer({}, { logger, metrics: getMetrics() })
afterAll(() => server.close())

const { user, token } = await createTestUser()
const task = await getDb()
  .insertInto('generation_tasks')
  .values({ user_id: user.id, kind: 'image', credit_cost: 2, provider: 'local', params: '{}' })
  .returning('id')
  .executeTakeFirstOrThrow()

function expectEveryAnswersHeaders(response: Response) {
  expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  expect(response.headers.get('x-frame-options')).toBe('DENY')
  expect(response.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin')
  expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin')
  expect(response.headers.get('permissions-policy')).toContain('camera=()')
  expect(response.headers.get('content-security-policy')).toContain("default-src 'none'")
  expect(response.headers.get('x-powered-by')).toBeNull()
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
}

const logLineOf = (requestId: string) => lines.find((line) => line.msg === 'request' && line.reqId === requestId)

test('a status poll: the security headers, no-store, its length, the request id and a log line with the route', async () => {
  const requestId = 'read-test-01'
  const response = await fetch(`${server.origin}/api/async-image/task/${task.id}?code=secret`, {
    headers: { 'x-auth-token': token, 'fly-request-id': requestId },
  })
  const body = await response.text()
  expect(response.status).toBe(200)
  expect((JSON.parse(body) as { id: string }).id).toBe(task.id)
  expectEveryAnswersHeaders(response)
  expect(response.headers.get('cache-control')).toBe('no-store')
  expect(response.headers.get('vary')).toBe('Accept-Encoding')
  expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(body)))
  expect(response.headers.get('x-request-id')).toBe(requestId)
  expect(logLineOf(requestId)).toMatchObject({
    method: 'GET',
    path: `/api/async-image/task/${task.id}`,
    route: '/api/async-image/task/:id',
    status: 200,
    ms: expect.any(Number),
  })
  const observed = (await getMetrics().httpRequestDuration.get()).values.find(
    (value) =>
      value.metricName === 'http_request_duration_seconds_count' &&
      value.labels.route === '/api/async-image/task/:id' &&
      value.labels.status === 200,
  )
  expect(observed?.value).toBeGreaterThanOrEqual(1)
})

test('signed out, someone else’s task, a malformed id: JSON 401 and 404 with the same headers and log lines', async () => {
  const stranger = await createTestUser()
  const answers: Array<{ headers: Record<string, string>; path: string; status: number }> = [
    { headers: {}, path: `/api/async-image/task/${task.id}`, status: 401 },
    { headers: { 'x-auth-token': stranger.token }, path: `/api/async-image/task/${task.id}`, status: 404 },
    { headers: { 'x-auth-token': token }, path: '/api/async-image/task/%E0%A4%A', status: 404 },
  ]
  for (const [index, { headers, path, status }] of answers.entries()) {
    const requestId = `read-refused-${index}`
    const response = await fetch(server.origin + path, { headers: { ...headers, 'fly-request-id': requestId } })
    expect(response.status).toBe(status)
    expect(((await response.json()) as { message: string }).message).toBeTruthy()
    expectEveryAnswersHeaders(response)
    expect(logLineOf(requestId)).toMatchObject({ route: '/api/async-image/task/:id', status })
  }
})

test('a GET from another site is read as before (CSRF refuses no GET); a POST from it is still refused', async () => {
  const crossSite = { origin: 'https://elsewhere.example', 'sec-fetch-site': 'cross-site', 'x-auth-token': token }
  const read = await fetch(`${server.origin}/api/async-image/task/${task.id}`, { headers: crossSite })
  expect(read.status).toBe(200)
  const logout = await fetch(`${server.origin}/api/auth/logout`, { method: 'POST', headers: crossSite })
  expect(logout.status).toBe(403)
  expect(await logout.json()).toEqual({ message: 'Cross-site request refused' })
})

test('a GET the direct path does not take goes through Express as before: an unknown path 404, an action-only route 405', async () => {
  const unknown = await fetch(`${server.origin}/api/async-image/nothing-here`)
  expect(unknown.status).toBe(404)
  expect(await unknown.json()).toEqual({ message: 'There is no such API endpoint' })
  expectEveryAnswersHeaders(unknown)
  const actionOnly = await fetch(`${server.origin}/api/auth/logout`)
  expect(actionOnly.status).toBe(405)
  expect(actionOnly.headers.get('allow')).toBe('POST')
})

test('the database away: a read answers 503 with Retry-After and the JSON message', async () => {
  const web = await startWebProcess({ DATABASE_URL: `postgres://nobody:nothing@127.0.0.1:${await freePort()}/gone` })
  try {
    const response = await fetch(`${web.origin}/api/async-image/task/${task.id}`, {
      headers: { 'x-auth-token': token },
    })
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('5')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(((await response.json()) as { message: string }).message).toMatch(/briefly unavailable/)
  } finally {
    await web.stop()
  }
})
