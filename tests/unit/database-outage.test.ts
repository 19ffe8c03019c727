import type { AddressInfo } from 'node:net'
import type { ServerBuild } from '@remix-run/node'
import express from 'express'
import { isDatabaseUnreachable, serviceUnavailable } from '#platform/database-outage.server.ts'
import { answerOutagesWith503, retryAfterOn503 } from '../../server/outage-routes.ts'

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code })

test('socket errors, PostgreSQL shutdown codes and pg connection losses count as an unreachable database', () => {
  for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08006']) {
    expect(isDatabaseUnreachable(withCode(code)), code).toBe(true)
  }
  expect(isDatabaseUnreachable(new Error('Connection terminated unexpectedly'))).toBe(true)
  expect(isDatabaseUnreachable(new Error('timeout exceeded when trying to connect'))).toBe(true)
  // Node's happy-eyeballs connect wraps each address's refusal in an AggregateError.
  expect(isDatabaseUnreachable(new AggregateError([withCode('ECONNREFUSED')], ''))).toBe(true)
  expect(isDatabaseUnreachable(new Error('query failed', { cause: withCode('57P01') }))).toBe(true)
})

test('query errors and bugs are not an outage', () => {
  expect(isDatabaseUnreachable(withCode('23505', 'duplicate key value violates unique constraint'))).toBe(false)
  expect(isDatabaseUnreachable(withCode('42P01', 'relation "nope" does not exist'))).toBe(false)
  expect(isDatabaseUnreachable(new TypeError('Cannot read properties of undefined'))).toBe(false)
  expect(isDatabaseUnreachable('ECONNREFUSED')).toBe(false)
  expect(isDatabaseUnreachable(null)).toBe(false)
})

test('the 503 says the service is briefly unavailable and when to try again', () => {
  const error = serviceUnavailable()
  expect(error.status).toBe(503)
  expect(error.message).toMatch(/briefly unavailable/)
  expect(error.headers).toEqual({ 'Retry-After': '5' })
})

function buildWith(loader: () => unknown): ServerBuild {
  return {
    routes: { root: { id: 'root', path: '', module: { loader, default: () => null } } },
  } as unknown as ServerBuild
}

test("a page's loader that finds the database away throws a 503 for the error boundary; other errors pass unchanged", async () => {
  const args = { request: new Request('http://localhost/'), params: {}, context: {} }
  const down = answerOutagesWith503(buildWith(() => Promise.reject(withCode('ECONNREFUSED'))))
  const thrown = await Promise.resolve(down.routes.root.module.loader!(args)).catch((error: unknown) => error)
  expect(thrown).toBeInstanceOf(Response)
  const response = thrown as Response
  expect(response.status).toBe(503)
  expect(response.headers.get('Retry-After')).toBe('5')
  expect(await response.json()).toEqual({ message: expect.stringMatching(/briefly unavailable/) })

  const bug = new TypeError('a bug')
  const buggy = answerOutagesWith503(buildWith(() => Promise.reject(bug)))
  await expect(buggy.routes.root.module.loader!(args)).rejects.toBe(bug)
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
