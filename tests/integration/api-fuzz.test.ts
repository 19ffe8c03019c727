import fc from 'fast-check'
import { sql } from 'kysely'
import { getDb } from '#platform/db.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { httpClient, startWebServer } from '#tests/helpers/web-server.ts'

/**
 * Every JSON and multipart /api endpoint, for every role, driven with arbitrary input over real
 * HTTP (issue 14): no answer is a 5xx, every 4xx is JSON `{ message }`, no answer shows a stack
 * trace or SQL, and a refused request leaves every user's credit ledger as it was.
 */

type Body = 'json' | 'multipart' | 'none'
interface Endpoint {
  method: string
  /** `{id}` is replaced by an arbitrary path segment. */
  path: string
  body: Body
  fields: string[]
  files?: string[]
}

const endpoints: Endpoint[] = [
  { method: 'GET', path: '/api/auth/me', body: 'none', fields: [] },
  { method: 'POST', path: '/api/auth/login', body: 'json', fields: ['email', 'password'] },
  {
    method: 'POST',
    path: '/api/auth/register',
    body: 'json',
    fields: ['email', 'password', 'name', 'verificationCode'],
  },
  { method: 'POST', path: '/api/auth/send-verification-code', body: 'json', fields: ['email'] },
  { method: 'POST', path: '/api/auth/forgot-password', body: 'json', fields: ['email'] },
  {
    method: 'POST',
    path: '/api/auth/reset-password',
    body: 'json',
    fields: ['email', 'verificationCode', 'password', 'confirmPassword'],
  },
  { method: 'POST', path: '/api/auth/update-avatar', body: 'json', fields: ['profilePicture'] },
  {
    method: 'PUT',
    path: '/api/auth/update-profile',
    body: 'json',
    fields: ['name', 'email', 'password', 'currentPassword'],
  },
  {
    method: 'POST',
    path: '/api/async-image/generate',
    body: 'multipart',
    fields: [
      'style',
      'prompt',
      'personification',
      'clothingTop',
      'accessories',
      'action',
      'background',
      'templatePrompt',
      'template_id',
    ],
    files: ['images'],
  },
  { method: 'GET', path: '/api/async-image/task/{id}', body: 'none', fields: [] },
  { method: 'POST', path: '/api/async-image/task/{id}/reroll', body: 'none', fields: [] },
  { method: 'POST', path: '/api/async-image/task/{id}/fix', body: 'json', fields: ['reasons', 'note'] },
  { method: 'GET', path: '/api/async-video/task/{id}', body: 'none', fields: [] },
  { method: 'GET', path: '/api/async-image/tasks/today', body: 'none', fields: [] },
  { method: 'GET', path: '/api/image/history', body: 'none', fields: ['page', 'limit'] },
  { method: 'GET', path: '/api/async-video/history', body: 'none', fields: ['page', 'limit'] },
  { method: 'DELETE', path: '/api/image/delete/{id}', body: 'none', fields: [] },
  { method: 'DELETE', path: '/api/async-video/delete/{id}', body: 'none', fields: [] },
  { method: 'DELETE', path: '/api/image/delete/inspiration/{id}', body: 'none', fields: [] },
  { method: 'GET', path: '/api/image/styles', body: 'none', fields: [] },
  { method: 'POST', path: '/api/image/styles', body: 'json', fields: ['value', 'label'] },
  {
    method: 'POST',
    path: '/api/image/update-case',
    body: 'multipart',
    fields: ['templatePrompt', 'style', 'prompt', 'name'],
    files: ['image'],
  },
  { method: 'GET', path: '/api/image/all', body: 'none', fields: [] },
  { method: 'GET', path: '/api/image/credit-history', body: 'none', fields: [] },
  { method: 'GET', path: '/api/config/usdt-wallet', body: 'none', fields: [] },
  {
    method: 'POST',
    path: '/api/image/submit-payment-proof',
    body: 'multipart',
    fields: ['transactionId', 'creditAmount', 'paymentAmount', 'paymentNote', 'paymentMethod'],
    files: ['screenshot'],
  },
  { method: 'GET', path: '/api/image/pending-payment-proofs', body: 'none', fields: [] },
  { method: 'POST', path: '/api/image/review-payment-proof/{id}', body: 'json', fields: ['approved', 'reason'] },
  { method: 'GET', path: '/api/system-config', body: 'none', fields: [] },
  {
    method: 'PUT',
    path: '/api/system-config',
    body: 'json',
    fields: [
      'newUserBonusCredits',
      'imageGenerationCreditCost',
      'videoGenerationCreditCost',
      'fastVideoGenerationCreditCost',
    ],
  },
  { method: 'GET', path: '/api/analytics/overview', body: 'none', fields: ['startDate', 'endDate'] },
  { method: 'GET', path: '/api/analytics/basic', body: 'none', fields: ['startDate', 'endDate'] },
  { method: 'POST', path: '/api/analytics/pageview', body: 'json', fields: ['path'] },
  { method: 'GET', path: '/api/userManagement/users', body: 'none', fields: [] },
  { method: 'GET', path: '/api/userManagement/stats/consumption', body: 'none', fields: [] },
  {
    method: 'POST',
    path: '/api/userManagement/users',
    body: 'json',
    fields: ['email', 'password', 'name', 'role', 'credits'],
  },
  { method: 'DELETE', path: '/api/userManagement/users/{id}', body: 'none', fields: [] },
  { method: 'PUT', path: '/api/userManagement/users/{id}/credits', body: 'json', fields: ['credits'] },
  { method: 'PUT', path: '/api/userManagement/users/{id}/ban', body: 'json', fields: ['isBanned'] },
  {
    method: 'POST',
    path: '/api/async-video/generate',
    body: 'multipart',
    fields: ['mode', 'prompt', 'creditCost', 'aspectRatio', 'resolution', 'quality'],
    files: ['image'],
  },
]

// Text with the characters that broke things: NUL and other controls, lone surrogates, SQL and JSON syntax.
const nasty = fc.constantFrom(
  '\u0000',
  '\u0007',
  '\u001b[0m',
  '\ud800',
  "' OR 1=1 --",
  '"}',
  '%00',
  '../',
  'a@b.co',
  '',
)
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.oneof(nasty, fc.string({ maxLength: 8 })), { maxLength: 5 }).map((parts) => parts.join('')),
)
const scalar = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(2 ** 60))
const value = fc.oneof(scalar, fc.jsonValue({ maxDepth: 3 }), fc.array(scalar, { maxLength: 3 }))

/** A value each field accepts, so that a control character or a stray byte gets past the other checks. */
const plausible: Record<string, string | number | boolean> = {
  email: 'fuzz@example.com',
  password: 'pw-123456',
  confirmPassword: 'pw-123456',
  currentPassword: 'password123',
  name: 'Rex',
  verificationCode: '123456',
  profilePicture: 'data:image/png;base64,iVBORw0KGgo=',
  style: 'general',
  prompt: 'a dog in a hat',
  templatePrompt: 'a dog in a hat',
  personification: 'a pirate',
  value: 'fuzz_style',
  label: 'Fuzz',
  transactionId: 'tx-12345',
  creditAmount: 100,
  paymentAmount: 5,
  paymentNote: 'thanks',
  paymentMethod: 'paypal_me',
  approved: true,
  reason: 'ok',
  role: 'user',
  credits: 10,
  isBanned: false,
  path: '/generate',
  mode: 'text',
  quality: 'fast',
  aspectRatio: '16:9',
  resolution: '720p',
  startDate: '2026-01-01',
  endDate: '2026-01-31',
  page: 1,
  limit: 10,
}

/** The field's plausible value, as is or with something nasty put into it. */
const nearlyValid = (name: string) => {
  const good = plausible[name] ?? 'x'
  return fc.oneof(
    fc.constant(good),
    fc
      .tuple(nasty, fc.nat())
      .map(
        ([bad, at]) =>
          String(good).slice(0, at % (String(good).length + 1)) +
          bad +
          String(good).slice(at % (String(good).length + 1)),
      ),
  )
}

/** Some of the endpoint's fields (each maybe missing, plausible or arbitrary) plus a few made-up ones. */
const fieldsOf = (endpoint: Endpoint, values: fc.Arbitrary<unknown>) =>
  fc
    .tuple(
      fc
        .subarray(endpoint.fields)
        .chain((names) =>
          fc.tuple(...names.map((name) => fc.tuple(fc.constant(name), fc.oneof(nearlyValid(name), values)))),
        ),
      fc.array(fc.tuple(text, values), { maxLength: 2 }),
    )
    .map(([known, extra]) => [...known, ...extra] as Array<[string, unknown]>)

// Every byte percent-encoded (encodeURIComponent refuses lone surrogates), or raw malformed escapes.
const percentEncoded = (segment: string) =>
  Array.from(Buffer.from(segment, 'utf8'), (byte) => `%${byte.toString(16).padStart(2, '0')}`).join('')
const pathSegment = fc.oneof(
  fc.uuid(),
  text.filter((segment) => segment.length > 0).map(percentEncoded),
  fc.constantFrom('%00', '%C0%AF', '%zz', '%', '..'),
)

const jsonBody = (endpoint: Endpoint) =>
  fc.oneof(
    { weight: 4, arbitrary: fieldsOf(endpoint, value).map((entries) => JSON.stringify(Object.fromEntries(entries))) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        text,
        fc.jsonValue().map((json) => JSON.stringify(json)),
      ),
    },
  )

const fileBytes = fc.oneof(fc.uint8Array({ maxLength: 2048 }), fc.constant(new Uint8Array(0)))

const multipartBody = (endpoint: Endpoint) =>
  fc
    .tuple(
      fieldsOf(endpoint, fc.oneof(text, fc.integer().map(String))),
      fc.array(fc.tuple(fc.constantFrom(...(endpoint.files ?? ['file'])), fileBytes, text), { maxLength: 3 }),
    )
    .map(([entries, files]) => {
      const form = new FormData()
      for (const [name, entry] of entries) form.append(name, String(entry))
      for (const [name, bytes, fileName] of files) form.append(name, new Blob([bytes]), fileName || 'photo.png')
      return form
    })

const request = fc.constantFrom(...endpoints).chain((endpoint) =>
  fc.record({
    endpoint: fc.constant(endpoint),
    role: fc.constantFrom('visitor', 'user', 'admin', 'superadmin'),
    id: pathSegment,
    query: fieldsOf(endpoint, text),
    body:
      endpoint.body === 'json'
        ? jsonBody(endpoint)
        : endpoint.body === 'multipart'
          ? multipartBody(endpoint)
          : fc.constant(undefined),
  }),
)

let web: Awaited<ReturnType<typeof startWebServer>>
let client: ReturnType<typeof httpClient>
const tokens: Record<string, string | undefined> = { visitor: undefined }
beforeAll(async () => {
  web = await startWebServer()
  client = httpClient(web.origin, { connections: 2 })
  for (const role of ['user', 'admin', 'superadmin'] as const) {
    tokens[role] = (await createTestUser({ role, credits: 50 })).token
  }
})
afterAll(async () => {
  await client.close()
  await web.close()
})

async function ledger() {
  const { rows } = await sql<{ user_id: string; entries: string; total: string; credits: number }>`
    SELECT users.id AS user_id, users.credits, count(ct.id) AS entries, coalesce(sum(ct.amount), 0) AS total
    FROM users LEFT JOIN credit_transactions ct ON ct.user_id = users.id
    GROUP BY users.id ORDER BY users.id
  `.execute(getDb())
  return JSON.stringify(rows)
}

const leaks =
  /\n\s+at |node_modules|\.ts:\d+|\b(SELECT|INSERT INTO|UPDATE|DELETE FROM)\b|syntax error|violates|relation "|invalid byte sequence|pg_/

test('no input reaches a 5xx, a stack trace or SQL, and refused requests leave the ledger alone', async () => {
  await fc.assert(
    fc.asyncProperty(request, async ({ endpoint, role, id, query, body }) => {
      const path = endpoint.path.replace('{id}', id)
      const search = new URLSearchParams(query.map(([name, entry]) => [name, String(entry)])).toString()
      const headers: Record<string, string> = {}
      if (tokens[role]) headers['x-auth-token'] = tokens[role]
      if (endpoint.body === 'json') headers['content-type'] = 'application/json'
      const before = await ledger()
      const response = await client.fetch(`${path}${search ? `?${search}` : ''}`, {
        method: endpoint.method,
        headers,
        body: body as BodyInit | undefined,
      })
      const answer = await response.text()
      const where = `${endpoint.method} ${path} as ${role} -> ${response.status} ${answer.slice(0, 200)}`
      expect(response.status, where).toBeLessThan(500)
      expect(answer, where).not.toMatch(leaks)
      if (response.status >= 400) {
        expect(response.headers.get('content-type'), where).toMatch(/^application\/json/)
        expect(typeof JSON.parse(answer).message, where).toBe('string')
        expect(await ledger(), where).toBe(before)
      }
    }),
    { numRuns: 600, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31) },
  )
})

test('every endpoint, for every role, refuses a NUL byte in its fields without a 5xx', async () => {
  for (const endpoint of endpoints) {
    for (const role of ['visitor', 'user', 'admin', 'superadmin']) {
      // A route without fields gets a query parameter: the query string is text from outside too.
      const names = endpoint.fields.length > 0 ? endpoint.fields : ['q']
      const fields = names.map((name): [string, string] => [name, `${plausible[name] ?? 'x'}\u0000`])
      let body: BodyInit | undefined
      if (endpoint.body === 'json') body = JSON.stringify(Object.fromEntries(fields))
      if (endpoint.body === 'multipart') {
        const form = new FormData()
        for (const [name, entry] of fields) form.append(name, entry)
        body = form
      }
      const query = endpoint.body === 'none' ? `?${new URLSearchParams(fields)}` : ''
      const headers: Record<string, string> = tokens[role] ? { 'x-auth-token': tokens[role] } : {}
      if (endpoint.body === 'json') headers['content-type'] = 'application/json'
      const path = endpoint.path.replace('{id}', '00000000-0000-4000-8000-000000000000')
      const before = await ledger()
      const response = await client.fetch(path + query, { method: endpoint.method, headers, body })
      const answer = await response.text()
      const where = `${endpoint.method} ${path} as ${role} -> ${response.status} ${answer.slice(0, 200)}`
      expect(response.status, where).toBeGreaterThanOrEqual(400)
      expect(response.status, where).toBeLessThan(500)
      expect(typeof JSON.parse(answer).message, where).toBe('string')
      expect(await ledger(), where).toBe(before)
    }
  }
})
