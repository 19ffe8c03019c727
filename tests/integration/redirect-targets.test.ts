import * as login from '#app/routes/login.tsx'
import { createTestUser } from '#tests/helpers/app.ts'
import { pageBuild } from '#tests/helpers/page-build.ts'
import { startWebServer } from '#tests/helpers/web-server.ts'

// Where /login sends a signed-in visitor (`redirectTo`, by GET and by the form), over real HTTP
// through server/app.ts as on Fly (TRUST_PROXY=fly). A browser reads a Location with the WHATWG URL
// parser after dropping tabs and line breaks; whatever we answer must land on this site.

const site = 'http://localhost:3000' // publicOrigin without PUBLIC_URL: this machine's PORT
let server: Awaited<ReturnType<typeof startWebServer>>
let cookie: string
let addresses = 0
const flyClient = () => ({ 'fly-client-ip': `198.51.100.${++addresses}` })

beforeAll(async () => {
  server = await startWebServer(
    { TRUST_PROXY: 'fly' },
    undefined,
    await pageBuild({ 'routes/login': { path: 'login', module: login } }),
  )
  await createTestUser({ email: 'redirects@example.com', password: 'secret-pass' })
  const signedIn = await signIn('/history')
  cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]
  expect(cookie).toMatch(/=./)
})
afterAll(() => server.close())

function signIn(redirectTo: string) {
  return fetch(`${server.origin}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...flyClient() },
    body: new URLSearchParams({ email: 'redirects@example.com', password: 'secret-pass', redirectTo }),
  })
}

const visit = (redirectTo: string) =>
  fetch(`${server.origin}/login?${new URLSearchParams({ redirectTo })}`, {
    redirect: 'manual',
    headers: { cookie, ...flyClient() },
  })

/** Where a browser goes with this answer: the Location as Chromium and Firefox read it. */
function landing(response: Response) {
  expect(response.status, 'a redirect, never a 500').toBe(302)
  const location = response.headers.get('location') ?? ''
  return new URL(location.replace(/[\t\n\r]/g, ''), site)
}

const elsewhere = [
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '/\t\\evil.example',
  '//evil.example',
  '/\\evil.example',
  '/.//evil.example',
  '/%2e//evil.example',
  'https://evil.example/',
  'javascript:alert(1)',
  ' /evil',
  `/${'a'.repeat(5000)}`,
].map((target) => [target.length > 40 ? `/aaa… (${target.length} characters)` : JSON.stringify(target), target])

test.each(elsewhere)('GET /login?redirectTo=%s sends a signed-in visitor home', async (_, target) => {
  const response = await visit(target)
  expect(landing(response).href).toBe(`${site}/`)
})

test.each(elsewhere)('the login form with redirectTo=%s sends the visitor home', async (_, target) => {
  const response = await signIn(target)
  expect(landing(response).href).toBe(`${site}/`)
})

test('a target of 100 kB in the form goes home too', async () => {
  expect(landing(await signIn(`/${'x'.repeat(100_000)}`)).href).toBe(`${site}/`)
})

test('a page of this site is kept, with its query and fragment, as the parser writes it', async () => {
  for (const answer of [await visit('/history?page=2#top'), await signIn('/history?page=2#top')]) {
    expect(answer.headers.get('location')).toBe('/history?page=2#top')
  }
  // Encoded characters stay encoded: a path, not a host.
  expect((await visit('/%09/evil.example')).headers.get('location')).toBe('/%09/evil.example')
  expect(landing(await visit('/%09/evil.example')).origin).toBe(site)
})
