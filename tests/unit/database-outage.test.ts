import type { AddressInfo } from 'node:net'
import type { ServerBuild } from '@remix-run/node'
import express from 'express'
import { isDatabasePoolExhausted, isDatabaseUnreachable, tagDatabaseError } from '#platform/database-outage.server.ts'
import { createPool } from '#platform/db.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { asServiceUnavailable, serviceUnavailable } from '#platform/service-unavailable.server.ts'
import { StorageUnavailableError } from '#platform/storage.server.ts'
import { ProviderError } from '#worker/providers/types.ts'
import { freePort } from '../../scripts/embedded-postgres.ts'
import { answerOutagesWith503, retryAfterOn503 } from '../../server/outage-routes.ts'

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code })

/** An error as node-postgres would hand it back, through db.server.ts's pool or client. */
function fromDatabase<E>(error: E): E {
  tagDatabaseError(error)
  return error
}

test('socket errors, PostgreSQL shutdown codes and pg connection losses from node-postgres mean an unreachable database', () => {
  for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08006']) {
    expect(isDatabaseUnreachable(fromDatabase(withCode(code))), code).toBe(true)
  }
  expect(isDatabaseUnreachable(fromDatabase(new Error('Connection terminated unexpectedly')))).toBe(true)
  // pg-pool's own timeout of a connection that cannot be made wraps the client's error.
  const timedOut = new Error('Connection terminated due to connection timeout', { cause: new Error('x') })
  expect(isDatabaseUnreachable(fromDatabase(timedOut))).toBe(true)
  // Node's happy-eyeballs connect wraps each address's refusal in an AggregateError.
  expect(isDatabaseUnreachable(fromDatabase(new AggregateError([withCode('ECONNREFUSED')], '')))).toBe(true)
  // A tagged error is found inside whatever wraps it later.
  expect(isDatabaseUnreachable(new Error('query failed', { cause: fromDatabase(withCode('57P01')) }))).toBe(true)
  // A database that hangs: a query unanswered within pg's query_timeout, and the ROLLBACK after it
  // on the connection that was closed for it.
  expect(isDatabaseUnreachable(fromDatabase(new Error('Query read timeout')))).toBe(true)
  expect(isDatabaseUnreachable(fromDatabase(new Error('Client was closed and is not queryable')))).toBe(true)
})

test('the same signs on an error from anywhere else are no database outage', () => {
  const refused = withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9')
  expect(isDatabaseUnreachable(refused)).toBe(false)
  expect(isDatabaseUnreachable(new Error('x', { cause: withCode('ECONNREFUSED') }))).toBe(false)
  expect(isDatabaseUnreachable(new AggregateError([withCode('ECONNRESET')], ''))).toBe(false)
  // What an OpenAI or Gemini host refusing the connection throws (worker/providers/http.ts).
  const fetchFailed = new TypeError('fetch failed', { cause: withCode('ECONNREFUSED') })
  const provider = new ProviderError('OpenAI could not be reached.', { retryable: true, cause: fetchFailed })
  expect(isDatabaseUnreachable(provider)).toBe(false)
  expect(isDatabaseUnreachable(new Error('Connection terminated unexpectedly'))).toBe(false)
})

test('query errors and bugs are not an outage, even from node-postgres', () => {
  expect(isDatabaseUnreachable(fromDatabase(withCode('23505', 'duplicate key value')))).toBe(false)
  expect(isDatabaseUnreachable(fromDatabase(withCode('42P01', 'relation "nope" does not exist')))).toBe(false)
  expect(isDatabaseUnreachable(fromDatabase(withCode('28P01', 'password authentication failed')))).toBe(false)
  expect(isDatabaseUnreachable(new TypeError('Cannot read properties of undefined'))).toBe(false)
  expect(isDatabaseUnreachable('ECONNREFUSED')).toBe(false)
  expect(isDatabaseUnreachable(null)).toBe(false)
})

test("pg-pool's wait for a free connection running out is a full pool, not an outage", () => {
  const full = fromDatabase(new Error('timeout exceeded when trying to connect'))
  expect(isDatabasePoolExhausted(full)).toBe(true)
  expect(isDatabaseUnreachable(full)).toBe(false)
  expect(isDatabasePoolExhausted(new Error('timeout exceeded when trying to connect'))).toBe(false)
})

test('our pool tags a refused connection where it happens, in the promise and the callback form', async () => {
  const pool = createPool(`postgres://nobody:nothing@127.0.0.1:${await freePort()}/none`)
  try {
    const refused = await pool.connect().catch((error: unknown) => error)
    expect(refused).toMatchObject({ code: 'ECONNREFUSED' })
    expect(isDatabaseUnreachable(refused)).toBe(true)
    // pg's own pool.query takes its connection through the callback form.
    const viaQuery = await pool.query('SELECT 1').catch((error: unknown) => error)
    expect(isDatabaseUnreachable(viaQuery)).toBe(true)
  } finally {
    await pool.end()
  }
})

test('the 503 says the service is briefly unavailable and when to try again', () => {
  const error = serviceUnavailable()
  expect(error.status).toBe(503)
  expect(error.message).toMatch(/briefly unavailable/)
  expect(error.headers).toEqual({ 'Retry-After': '5' })
})

test('media storage being away is a 503 that names storage, and no database outage', async () => {
  const outages = async () => (await getMetrics().databaseOutages.get()).values[0]?.value ?? 0
  const before = await outages()
  const storage = asServiceUnavailable(new StorageUnavailableError(withCode('ECONNRESET', 'socket hang up')))
  expect(storage).toMatchObject({ status: 503, headers: { 'Retry-After': '5' } })
  expect(storage?.message).toMatch(/storage is briefly unavailable/i)
  expect(asServiceUnavailable(withCode('ECONNRESET'))).toBeNull()
  expect(await outages()).toBe(before)
  expect((await getMetrics().databaseUnreachable.get()).values[0]?.value ?? 0).toBe(0)
})

function buildWith(loader: () => unknown): ServerBuild {
  return {
    routes: { root: { id: 'root', path: '', module: { loader, default: () => null } } },
  } as unknown as ServerBuild
}

test("a page's loader that finds the database away throws a 503 for the error boundary; other errors pass unchanged", async () => {
  const args = { request: new Request('http://localhost/'), params: {}, context: {} }
  const down = answerOutagesWith503(buildWith(() => Promise.reject(fromDatabase(withCode('ECONNREFUSED')))))
  const thrown = await Promise.resolve(down.routes.root.module.loader!(args)).catch((error: unknown) => error)
  expect(thrown).toBeInstanceOf(Response)
  const response = thrown as Response
  expect(response.status).toBe(503)
  expect(response.headers.get('Retry-After')).toBe('5')
  expect(await response.json()).toEqual({ message: expect.stringMatching(/briefly unavailable/) })

  const bug = new TypeError('a bug')
  const buggy = answerOutagesWith503(buildWith(() => Promise.reject(bug)))
  await expect(buggy.routes.root.module.loader!(args)).rejects.toBe(bug)
  // A socket error of something other than the database is no outage either.
  const other = withCode('ECONNREFUSED')
  const elsewhere = answerOutagesWith503(buildWith(() => Promise.reject(other)))
  await expect(elsewhere.routes.root.module.loader!(args)).rejects.toBe(other)
  const fine = answerOutagesWith503(buildWith(() => ({ ok: true })))
  await expect(fine.routes.root.module.loader!(args)).resolves.toEqual({ ok: true })
})

test('a page answered 503 carries Retry-After; other answers do not', async () => {
  const app = express()
  app.get('/down', retryAfterOn503, (_req, res) => void res.status(503).send('<h1>Briefly unavailable</h1>'))
  app.get('/up', retryAfterOn503, (_req, res) => void res.send('ok'))
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  try {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const down = await fetch(`${origin}/down`)
    expect(down.status).toBe(503)
    expect(down.headers.get('retry-after')).toBe('5')
    expect((await fetch(`${origin}/up`)).headers.get('retry-after')).toBeNull()
  } finally {
    server.close()
  }
})
