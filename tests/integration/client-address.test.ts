import { createTestUser } from '#tests/helpers/app.ts'
import { httpClient, startWebServer } from '#tests/helpers/web-server.ts'

// Rate limits key on the address the web server sees (issue 14), over real HTTP from two loopback addresses.
let web: Awaited<ReturnType<typeof startWebServer>>
beforeAll(async () => {
  web = await startWebServer()
})
afterAll(() => web.close())

const asJson = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
})

async function withClient<T>(localAddress: string, run: (client: ReturnType<typeof httpClient>) => Promise<T>) {
  const client = httpClient(web.origin, { localAddress })
  try {
    return await run(client)
  } finally {
    await client.close()
  }
}

test("a stranger's wrong guesses lock neither the owner's account nor other clients out", async () => {
  await createTestUser({ email: 'owner@example.com', password: 'owner-secret', role: 'superadmin' })
  const ownerSignsIn = () =>
    withClient('127.0.0.1', async (owner) => {
      const response = await owner.fetch(
        '/api/auth/login',
        asJson({ email: 'owner@example.com', password: 'owner-secret' }),
      )
      return { status: response.status, body: (await response.json()) as { user?: { email: string } } }
    })
  // The owner has signed in from their address before (issue 30: that address is never delayed).
  expect((await ownerSignsIn()).status).toBe(200)
  await withClient('127.0.0.2', async (stranger) => {
    const statuses: number[] = []
    for (let i = 0; i < 31; i++) {
      // A made-up X-Forwarded-For changes nothing: the socket's address is what counts.
      const headers = { 'x-forwarded-for': `203.0.113.${i}`, 'fly-client-ip': `198.51.100.${i}` }
      const email = i % 3 === 0 ? 'owner@example.com' : `nobody${i}@example.com`
      const response = await stranger.fetch('/api/auth/login', asJson({ email, password: 'wrong-guess' }, headers))
      statuses.push(response.status)
    }
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true)
    expect(statuses.at(-1)).toBe(429)
  })
  expect(await ownerSignsIn()).toMatchObject({ status: 200, body: { user: { email: 'owner@example.com' } } })
})

test('registrations are limited per address, with a message; another address can still register', async () => {
  const register = (client: ReturnType<typeof httpClient>, n: number) =>
    client.fetch(
      '/api/auth/register',
      asJson({ name: `Farm ${n}`, email: `farm${n}@example.com`, password: 'pw-123456' }),
    )
  await withClient('127.0.0.3', async (farmer) => {
    // REGISTRATIONS_PER_IP_PER_HOUR defaults to 5.
    for (let n = 1; n <= 5; n++) expect((await register(farmer, n)).status).toBe(201)
    const refused = await register(farmer, 6)
    expect(refused.status).toBe(429)
    expect((await refused.json()).message).toMatch(/^Too many attempts, please try again in \d+ minutes?$/)
  })
  await withClient('127.0.0.4', async (someoneElse) => {
    expect((await register(someoneElse, 7)).status).toBe(201)
  })
})

test('Fly-Client-IP names the client only when TRUST_PROXY=fly', async () => {
  const behindFly = await startWebServer({ TRUST_PROXY: 'fly' })
  try {
    const client = httpClient(behindFly.origin, { localAddress: '127.0.0.5' })
    const attempt = (flyClientIp: string, n: number) =>
      client.fetch(
        '/api/auth/login',
        asJson({ email: `nobody${n}@example.com`, password: 'wrong' }, { 'fly-client-ip': flyClientIp }),
      )
    for (let i = 0; i < 30; i++) expect((await attempt('192.0.2.200', i)).status).toBe(401)
    expect((await attempt('192.0.2.200', 30)).status).toBe(429)
    // Behind Fly, one socket address carries many clients: another one is not limited.
    expect((await attempt('192.0.2.201', 31)).status).toBe(401)
    await client.close()
  } finally {
    await behindFly.close()
  }
})
