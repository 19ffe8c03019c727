import http from 'node:http'
import { gunzipSync } from 'node:zlib'
import { getDb } from '#platform/db.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { httpClient, startWebServer } from '#tests/helpers/web-server.ts'

let web: Awaited<ReturnType<typeof startWebServer>>
beforeAll(async () => {
  web = await startWebServer()
})
afterAll(() => web.close())

const call = (path: string, init: RequestInit = {}) => fetch(web.origin + path, init)

describe('paths and methods under /api', () => {
  test.each([
    ['GET', '/api'],
    ['GET', '/api/nothing-here'],
    ['GET', '/api/async-image/task/'],
    ['DELETE', '/api/image/delete/'],
    ['PUT', '/api/userManagement/users//credits'],
    ['GET', '/api/async-video/task/x/y'],
    ['GET', '/api/auth/me/extra'],
  ])('%s %s answers a JSON 404', async (method, path) => {
    const response = await call(path, { method })
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await response.json()).toEqual({ message: 'There is no such API endpoint' })
  })

  test.each([
    ['POST', '/api/auth/me', 'GET, HEAD'],
    ['DELETE', '/api/image/styles', 'GET, HEAD, POST'],
    ['GET', '/api/auth/login', 'POST'],
    ['POST', '/api/image/delete/abc', 'DELETE'],
    ['POST', '/api/system-config', 'GET, HEAD, PUT'],
    ['GET', '/api/userManagement/users/abc/credits', 'PUT'],
  ])('%s %s answers 405 with Allow: %s', async (method, path, allow) => {
    const response = await call(path, { method })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe(allow)
    expect((await response.json()).message).toMatch(/not allowed/)
  })

  test('a known path with the right method still reaches its route, with or without a trailing slash', async () => {
    for (const path of ['/api/config/email-verification', '/api/config/email-verification/']) {
      const response = await call(path)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ enabled: false })
    }
  })
})

test('POST /api/auth/logout revokes the token', async () => {
  const { token } = await createTestUser()
  const me = () => call('/api/auth/me', { headers: { 'x-auth-token': token } })
  expect((await me()).status).toBe(200)
  const logout = await call('/api/auth/logout', { method: 'POST', headers: { 'x-auth-token': token } })
  expect(logout.status).toBe(200)
  expect(await logout.json()).toEqual({ message: 'Logged out' })
  expect((await me()).status).toBe(401)
  // Logging out again (or without a session) is not an error.
  expect((await call('/api/auth/logout', { method: 'POST' })).status).toBe(200)
})

describe('GET /api/analytics/basic', () => {
  const range = '?startDate=2026-01-01&endDate=2026-01-31'

  test('answers admins and superadmins the activity counts, without payments or locations', async () => {
    for (const role of ['admin', 'superadmin'] as const) {
      const { token } = await createTestUser({ role })
      const response = await call(`/api/analytics/basic${range}`, { headers: { 'x-auth-token': token } })
      expect(response.status).toBe(200)
      const body = await response.json()
      expect(body.startDate).toBe('2026-01-01')
      expect(Object.keys(body.counts).sort()).toEqual(
        ['apiCalls', 'imageGenerations', 'pageViews', 'userLogins', 'userRegisters'].sort(),
      )
      expect(body.imageGenerationsByDay).toHaveLength(31)
      expect(body).not.toHaveProperty('paymentMethods')
      expect(body).not.toHaveProperty('locations')
    }
  })

  test('refuses users (403) and visitors (401), and a missing range is a 400', async () => {
    const { token } = await createTestUser()
    expect((await call(`/api/analytics/basic${range}`, { headers: { 'x-auth-token': token } })).status).toBe(403)
    expect((await call(`/api/analytics/basic${range}`)).status).toBe(401)
    const { token: admin } = await createTestUser({ role: 'admin' })
    const missing = await call('/api/analytics/basic', { headers: { 'x-auth-token': admin } })
    expect(missing.status).toBe(400)
    expect((await missing.json()).message).toMatch(/startDate/)
  })
})

describe('a GET answered by its loader through the api router', () => {
  test("a loader's own gzipped JSON reaches the client as the loader made it", async () => {
    const { token } = await createTestUser({ role: 'superadmin' })
    // fetch asks for gzip and decodes it: bytes changed on the way would fail to decompress.
    const response = await call('/api/analytics/overview?startDate=2026-01-01&endDate=2026-01-31', {
      headers: { 'x-auth-token': token, 'accept-encoding': 'gzip' },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-encoding')).toBe('gzip')
    expect(await response.json()).toMatchObject({ pageViews: [] })
  })

  test('a JSON answer over a kilobyte is compressed for a client that accepts gzip, a smaller one is not', async () => {
    const { token } = await createTestUser({ role: 'admin' })
    const headers = { 'x-auth-token': token, 'accept-encoding': 'gzip' }
    const large = await call('/api/analytics/basic?startDate=2026-01-01&endDate=2026-01-31', { headers })
    expect(large.status).toBe(200)
    expect(large.headers.get('content-encoding')).toBe('gzip')
    expect((await large.json()).imageGenerationsByDay).toHaveLength(31)
    const small = await call('/api/config/email-verification', { headers })
    expect(small.headers.get('content-encoding')).toBeNull()
    expect(await small.json()).toEqual({ enabled: false })
  })
})

describe('compression of the answers of GETs', () => {
  /** The raw answer of a GET: headers as sent, body bytes as sent. */
  const rawGet = (path: string, headers: Record<string, string>) =>
    new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get(web.origin + path, { headers }, (response) => {
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }))
        })
        .on('error', reject)
    })

  test('a small JSON answer goes out whole with its length; a large one compressed for a client that takes gzip', async () => {
    const { user, token } = await createTestUser()
    const headers = { 'x-auth-token': token, 'accept-encoding': 'gzip' }
    const small = await rawGet('/api/async-image/tasks/today', headers)
    expect(small.headers['content-length']).toBe(String(small.body.byteLength))
    expect(small.headers['transfer-encoding']).toBeUndefined()
    expect(small.headers['content-encoding']).toBeUndefined()
    expect(small.headers.vary).toBe('Accept-Encoding')
    expect(JSON.parse(small.body.toString())).toEqual({ tasks: [] })

    await getDb()
      .insertInto('generation_tasks')
      .values(
        Array.from({ length: 6 }, () => ({
          user_id: user.id,
          kind: 'image' as const,
          params: '{}',
          credit_cost: 2,
          provider: 'local',
        })),
      )
      .execute()
    const large = await rawGet('/api/async-image/tasks/today', headers)
    expect(large.headers['content-encoding']).toBe('gzip')
    expect(large.headers.vary).toBe('Accept-Encoding')
    const { tasks } = JSON.parse(gunzipSync(large.body).toString()) as { tasks: unknown[] }
    expect(tasks).toHaveLength(6)

    const plain = await rawGet('/api/async-image/tasks/today', { 'x-auth-token': token, 'accept-encoding': 'identity' })
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(JSON.parse(plain.body.toString())).toEqual({ tasks })
  })
})

describe('an early refusal on a kept-alive connection', () => {
  test('a too-large upload is answered and the next request on the same connection succeeds', async () => {
    const { token } = await createTestUser()
    const client = httpClient(web.origin)
    try {
      const ping = async () => {
        const response = await client.fetch('/api/config/email-verification')
        expect(response.status).toBe(200)
        return response.json()
      }
      await ping()
      const form = new FormData()
      form.append('style', 'cartoon')
      form.append('images', new Blob([new Uint8Array(11 * 1024 * 1024)], { type: 'image/png' }), 'big.png')
      const refused = await client.fetch('/api/async-image/generate', {
        method: 'POST',
        headers: { 'x-auth-token': token },
        body: form,
      })
      expect(refused.status).toBe(413)
      expect(refused.headers.get('connection')).toBe('close')
      expect((await refused.json()).message).toMatch(/10\s?MB/)
      // The same client (one connection at most) goes on working.
      expect(await ping()).toEqual({ enabled: false })
      expect(await ping()).toEqual({ enabled: false })
    } finally {
      await client.close()
    }
  })

  test('a too-long JSON field is answered 413 and the client goes on working', async () => {
    const client = httpClient(web.origin)
    try {
      const refused = await client.fetch('/api/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(2 * 1024 * 1024) }),
      })
      expect(refused.status).toBe(413)
      expect((await client.fetch('/api/config/email-verification')).status).toBe(200)
    } finally {
      await client.close()
    }
  })

  test('answers that never read the body (401, 404, 405) leave the connection usable', async () => {
    const client = httpClient(web.origin)
    try {
      const json = {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x'.repeat(50_000) }),
      }
      expect((await client.fetch('/api/auth/update-profile', json)).status).toBe(401)
      expect((await client.fetch('/api/nothing-here', json)).status).toBe(404)
      expect((await client.fetch('/api/auth/me', json)).status).toBe(405)
      expect((await client.fetch('/api/config/email-verification')).status).toBe(200)
    } finally {
      await client.close()
    }
  })

  test('an answer after the whole body was read keeps the connection alive', async () => {
    const response = await call('/api/config/email-verification')
    await response.text()
    expect(response.headers.get('connection')).not.toBe('close')
  })
})
