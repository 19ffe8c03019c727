import { sql } from 'kysely'
import { issueVerificationCode } from '#domain/accounts/verification-code.server.ts'
import { deleteStaleSignInAddresses } from '#domain/accounts/sign-in-addresses.server.ts'
import { deleteForgottenLoginFailures } from '#domain/limits/login-delay.server.ts'
import { systemStatus } from '#domain/operator/system-status.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { CLIENT_ADDRESS_HEADER } from '#platform/client-address.server.ts'
import { action as loginRoute } from '#app/routes/api.auth.login.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { startWebProcess } from '#tests/helpers/web-process.ts'

// Issue 30, items 4 and 5, black-box: a web process of its own behind "Fly" (TRUST_PROXY=fly), so
// Fly-Client-IP names the client, here IPv6 addresses a client can rotate at will.
let web: Awaited<ReturnType<typeof startWebProcess>>
beforeAll(async () => {
  web = await startWebProcess({ TRUST_PROXY: 'fly' })
})
afterAll(() => web?.stop())

const db = getDb()
let forged = 0

/** POSTs JSON as the client `address`; a made-up X-Forwarded-For on every request changes nothing. */
async function post(path: string, address: string, body: unknown) {
  forged += 1
  const response = await fetch(web.origin + path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'fly-client-ip': address,
      'x-forwarded-for': `2001:db8:ffff:${forged}::1`,
    },
    body: JSON.stringify(body),
  })
  const json = (await response.json()) as { message?: string }
  return { status: response.status, message: json.message ?? '', retryAfter: response.headers.get('retry-after') }
}

const login = (address: string, email: string, password: string) =>
  post('/api/auth/login', address, { email, password })
const register = (address: string, n: string) =>
  post('/api/auth/register', address, { name: `Farm ${n}`, email: `farm-${n}@example.com`, password: 'pw-123456' })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
test('55 wrong passwords from one /64, each from a new address, meet 429 within the first eleven', async () => {
  await createTestUser({ email: 'rotated@example.com', password: 'owner-secret' })
  const results = []
  for (let i = 0; i < 55; i++)
    results.push(await login(`2001:db8:10:1::${(i + 1).toString(16)}`, 'rotated@example.com', 'guess'))
  const statuses = results.map((result) => result.status)
  expect(statuses.indexOf(429)).toBeGreaterThan(0)
  expect(statuses.indexOf(429)).toBeLessThanOrEqual(10)
  expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(10)
  expect(statuses.at(-1)).toBe(429)
  expect(results.at(-1)?.retryAfter).toMatch(/^\d+$/)
})

test('one /64 guessing across accounts is one client: its 31st failure in 15 minutes is refused', async () => {
  const statuses = []
  for (let i = 0; i < 31; i++) {
    statuses.push((await login(`2001:db8:11:1:${i.toString(16)}::1`, `nobody-${i}@example.com`, 'guess')).status)
  }
  expect(statuses.slice(0, 30).every((status) => status === 401)).toBe(true)
  expect(statuses[30]).toBe(429)
  // Another /64 of the same /48 is another client.
  expect((await login('2001:db8:11:2::1', 'nobody-x@example.com', 'guess')).status).toBe(401)
})

test('sign-ups from one /64 are limited like one IPv4 address, and IPv4-mapped IPv6 is that IPv4 address', async () => {
  for (let i = 1; i <= 5; i++) expect((await register(`2001:db8:20:1::${i}`, `a${i}`)).status).toBe(201)
  const refused = await register('2001:db8:20:1:ffff:ffff:ffff:ffff', 'a6')
  expect(refused).toMatchObject({
    status: 429,
    message: expect.stringMatching(/^Too many attempts, please try again in \d+ minutes?$/),
  })

  for (let i = 1; i <= 5; i++) {
    expect((await register(i % 2 ? '::ffff:198.51.100.7' : '198.51.100.7', `b${i}`)).status).toBe(201)
  }
  expect((await register('198.51.100.7', 'b6')).status).toBe(429)
  expect((await register('::ffff:198.51.100.7', 'b7')).status).toBe(429)
  expect((await register('198.51.100.8', 'b8')).status).toBe(201)
})

test('sign-ups from many /64s of one /48 meet the /48 limit (20 an hour)', async () => {
  for (let net = 1; net <= 5; net++) {
    for (let i = 1; i <= 4; i++) expect((await register(`2001:db8:21:${net}::${i}`, `c${net}-${i}`)).status).toBe(201)
  }
  expect((await register('2001:db8:21:99::1', 'c-over')).status).toBe(429)
  expect((await register('2001:db8:22:1::1', 'c-elsewhere')).status).toBe(201)
})

test('guesses from many /64s hold the account back with a growing delay, whatever the password', async () => {
  await createTestUser({ email: 'spread@example.com', password: 'owner-secret' })
  const from = (n: number) => `2001:db8:${(0x30 + n).toString(16)}:1::1`
  for (let n = 0; n < 5; n++) expect((await login(from(n), 'spread@example.com', 'guess')).status).toBe(401)
  const held = await login(from(5), 'spread@example.com', 'guess')
  expect(held).toMatchObject({
    status: 429,
    retryAfter: '2',
    message: 'Too many failed sign-ins to this account, please try again in 2 seconds',
  })
  // A stranger's right guess is held back as well: the delay tells nothing about the password.
  expect((await login(from(6), 'spread@example.com', 'owner-secret')).status).toBe(429)
  await sleep(2100)
  expect((await login(from(7), 'spread@example.com', 'guess')).status).toBe(401)
  expect(await login(from(8), 'spread@example.com', 'guess')).toMatchObject({ status: 429, retryAfter: '4' })
  // An email without an account answers the same way, so the delay does not tell who is registered.
  for (let n = 0; n < 5; n++) expect((await login(from(n), 'ghost@example.com', 'guess')).status).toBe(401)
  expect(await login(from(5), 'ghost@example.com', 'guess')).toMatchObject({ status: 429, retryAfter: '2' })
})

test("the owner's own /64 is never delayed, and a right password clears the count", async () => {
  await createTestUser({ email: 'known@example.com', password: 'owner-secret' })
  expect((await login('2001:db8:40:1::10', 'known@example.com', 'owner-secret')).status).toBe(200)
  const statuses = []
  for (let n = 0; n < 8; n++) {
    statuses.push((await login(`2001:db8:41:${n}::1`, 'known@example.com', 'guess')).status)
  }
  expect(statuses.at(-1)).toBe(429)
  expect((await login('2001:db8:42:1::1', 'known@example.com', 'owner-secret')).status).toBe(429)
  // Another address of the /64 the owner signed in from.
  expect((await login('2001:db8:40:1:aaaa::beef', 'known@example.com', 'owner-secret')).status).toBe(200)
  // Cleared: a new client's failures are plain 401s again, five of them.
  for (let n = 0; n < 5; n++)
    expect((await login(`2001:db8:43:${n}::1`, 'known@example.com', 'guess')).status).toBe(401)
})

test('a password reset works while guesses hold the account back, and lets its client in', async () => {
  await createTestUser({ email: 'reset-me@example.com', password: 'old-secret' })
  for (let n = 0; n < 6; n++) await login(`2001:db8:50:${n}::1`, 'reset-me@example.com', 'guess')
  expect((await login('2001:db8:51:1::1', 'reset-me@example.com', 'old-secret')).status).toBe(429)
  const code = await issueVerificationCode(db, 'reset-me@example.com', 'reset')
  const reset = await post('/api/auth/reset-password', '2001:db8:51:1::2', {
    email: 'reset-me@example.com',
    verificationCode: code,
    password: 'new-secret',
    confirmPassword: 'new-secret',
  })
  expect(reset.status).toBe(200)
  // The guesser goes on; the owner's client, proved by the reset, is not held back.
  for (let n = 0; n < 6; n++) await login(`2001:db8:52:${n}::1`, 'reset-me@example.com', 'guess')
  expect((await login('2001:db8:52:9::1', 'reset-me@example.com', 'new-secret')).status).toBe(429)
  expect((await login('2001:db8:51:1::3', 'reset-me@example.com', 'new-secret')).status).toBe(200)
})

/** Lets a mailbox's one-a-minute window end, as a minute's wait would. */
const endMinuteWindows = () =>
  sql`UPDATE rate_limits SET window_ends_at = now() WHERE key LIKE 'send-code:%:minute:%'`.execute(db)

test('codes to victim+1@… … victim+6@… share one mailbox quota of five an hour', async () => {
  const send = (email: string, n: number) => post('/api/auth/send-verification-code', `2001:db8:60:${n}::1`, { email })
  for (let n = 1; n <= 5; n++) {
    await endMinuteWindows()
    expect((await send(`victim+${n}@example.com`, n)).status).toBe(200)
  }
  await endMinuteWindows()
  expect(await send('victim+6@example.com', 6)).toMatchObject({
    status: 429,
    message: expect.stringMatching(/^Too many attempts, please try again in \d+ minutes?$/),
    retryAfter: expect.stringMatching(/^\d+$/),
  })
  expect((await send('Victim@Example.com', 7)).status).toBe(429)
})

test('one a minute per mailbox: dotted Gmail spellings and googlemail.com are one; so are password resets', async () => {
  const send = (email: string, n: number) => post('/api/auth/send-verification-code', `2001:db8:61:${n}::1`, { email })
  expect((await send('pet.owner@gmail.com', 0)).status).toBe(200)
  expect((await send('petowner@googlemail.com', 1)).status).toBe(429)
  expect((await send('P.e.t.Owner+portraits@gmail.com', 2)).status).toBe(429)

  const forgot = (email: string, n: number) => post('/api/auth/forgot-password', `2001:db8:62:${n}::1`, { email })
  expect((await forgot('owner+a@example.com', 0)).status).toBe(200)
  expect((await forgot('owner+b@example.com', 1)).status).toBe(429)
})

test('an operator sees the limits that tripped: a log line each, and the status page', async () => {
  const lines = web.output
    .join('')
    .split('\n')
    .filter((line) => line.includes('"msg":"rate limit reached"'))
    .map((line) => JSON.parse(line) as { limit: string })
  const names = new Set(lines.map((line) => line.limit))
  for (const name of [
    'login:account-delay',
    'login:ip',
    'register:ip',
    'register:ipv6-48',
    'send-code:register:minute',
  ]) {
    expect(names).toContain(name)
  }
  // No address or email in those lines.
  expect(lines.map((line) => JSON.stringify(line)).join('\n')).not.toMatch(/@|2001:db8/)
  for (let n = 0; n < 5; n++) await login(`2001:db8:70:${n}::1`, 'watched@example.com', 'guess')
  const status = await systemStatus(db)
  expect(status.rateLimits.tripped.map((limit) => limit.name)).toEqual(
    expect.arrayContaining(['login:ip', 'register:ip', 'register:ipv6-48', 'send-code:register:hour']),
  )
  expect(status.rateLimits.delayedAccounts).toBeGreaterThanOrEqual(1)
})

test('each refusal counts in pawtrait_rate_limited_total under its limit name', async () => {
  const attempt = (n: number) =>
    callRoute(
      loginRoute,
      makeRequest('/api/auth/login', {
        json: { email: 'counted@example.com', password: 'guess' },
        headers: { [CLIENT_ADDRESS_HEADER]: `2001:db8:80:${n}::1` },
      }),
    )
  for (let n = 0; n < 5; n++) expect((await attempt(n)).status).toBe(401)
  for (let n = 5; n < 8; n++) expect((await attempt(n)).status).toBe(429)
  const metric = await getMetrics().registry.getSingleMetricAsString('pawtrait_rate_limited_total')
  expect(metric).toContain('pawtrait_rate_limited_total{limit="login:account-delay"} 3')
})

test('the daily cleanup forgets failure counts a day old and clients unseen for 180 days, nothing newer', async () => {
  const { user } = await createTestUser({ email: 'tidy@example.com' })
  await db
    .insertInto('login_failures')
    .values([
      { account: 'stale@example.com', failures: 9, last_failure_at: sql<Date>`now() - interval '25 hours'` },
      { account: 'fresh@example.com', failures: 9, last_failure_at: sql<Date>`now() - interval '23 hours'` },
    ])
    .execute()
  await db
    .insertInto('sign_in_addresses')
    .values([
      { user_id: user.id, client_key: '192.0.2.50', last_seen_at: sql<Date>`now() - interval '181 days'` },
      { user_id: user.id, client_key: '192.0.2.51', last_seen_at: sql<Date>`now() - interval '179 days'` },
    ])
    .execute()
  await deleteForgottenLoginFailures(db)
  await deleteStaleSignInAddresses(db)
  const accounts = await db
    .selectFrom('login_failures')
    .select('account')
    .where('account', 'in', ['stale@example.com', 'fresh@example.com'])
    .execute()
  expect(accounts.map((row) => row.account)).toEqual(['fresh@example.com'])
  const clients = await db.selectFrom('sign_in_addresses').select('client_key').where('user_id', '=', user.id).execute()
  expect(clients.map((row) => row.client_key)).toEqual(['192.0.2.51'])
})
