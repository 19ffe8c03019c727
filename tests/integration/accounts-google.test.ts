import { findSessionUser } from '#domain/sessions/session.server.ts'
import { findUserByEmail } from '#domain/accounts/user.server.ts'
import { getSessionCookie } from '#domain/sessions/auth.server.ts'
import { getDb } from '#platform/db.server.ts'
import { loader as googleStart } from '#app/routes/api.auth.google.ts'
import { loader as googleCallback } from '#app/routes/api.auth.google.callback.ts'
import { action as login } from '#app/routes/api.auth.login.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { type FakeGoogleProfile, startFakeGoogle } from '#tests/fakes/google-oauth.ts'

// Google sign-in configured against the local fake, before anything reads the environment.
const google = await startFakeGoogle()
Object.assign(process.env, google.env, { PUBLIC_URL: 'http://localhost' })
afterAll(() => google.close())

const cookiePair = (setCookie: string | null) => (setCookie ?? '').split(';')[0]

/** Start → the fake's consent → the callback, as a browser would (the state cookie carried along). */
async function signInWithGoogle(profile: FakeGoogleProfile, tamper: (callback: URL) => void = () => {}) {
  google.profile = profile
  const start = await callRoute(googleStart, makeRequest('/api/auth/google'))
  expect(start.status).toBe(302)
  const consent = await fetch(start.headers.get('location')!, { redirect: 'manual' })
  const callback = new URL(consent.headers.get('location')!)
  tamper(callback)
  const request = makeRequest(callback.pathname + callback.search, {
    headers: { cookie: cookiePair(start.headers.get('set-cookie')) },
  })
  return callRoute(googleCallback, request)
}

async function signedInUser(response: Response) {
  expect(response.status).toBe(302)
  const location = new URL(response.headers.get('location')!, 'http://localhost')
  expect(location.pathname).toBe('/auth/callback')
  const token = location.searchParams.get('token')!
  const cookies = response.headers.getSetCookie()
  expect(await getSessionCookie().parse(cookies.find((cookie) => cookie.startsWith('pawtrait_session='))!)).toBe(token)
  // The OAuth state cookie is dropped once used.
  expect(cookies.find((cookie) => cookie.startsWith('pawtrait_oauth='))).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/)
  const user = await findSessionUser(getDb(), token)
  expect(user).toBeDefined()
  return user!
}

const refusedToLogin = (response: Response) => {
  expect(response.status).toBe(302)
  expect(response.headers.get('location')).toBe('/login?error=google')
}

test('the start sends the browser to the authorization URL with the client id, callback URL, scopes and a state', async () => {
  const start = await callRoute(googleStart, makeRequest('/api/auth/google'))
  const location = new URL(start.headers.get('location')!)
  expect(location.origin + location.pathname).toBe(`${google.url}/authorize`)
  expect(location.searchParams.get('client_id')).toBe(google.clientId)
  expect(location.searchParams.get('redirect_uri')).toBe('http://localhost/api/auth/google/callback')
  expect(location.searchParams.get('scope')).toContain('email')
  expect(location.searchParams.get('state')).toMatch(/.{16,}/)
  expect(start.headers.get('set-cookie')).toMatch(/^pawtrait_oauth=.*HttpOnly.*SameSite=Lax/i)
})

test('a new Google user gets an account with the new-user bonus and a session', async () => {
  const response = await signInWithGoogle({
    sub: 'g-new',
    email: 'Fresh@Gmail.com',
    email_verified: true,
    name: 'Fresh Face',
  })
  const user = await signedInUser(response)
  expect(user).toMatchObject({ email: 'fresh@gmail.com', name: 'Fresh Face', google_id: 'g-new', email_verified: true })
  expect(user.password_hash).toBeNull()
  const ledger = await getDb()
    .selectFrom('credit_transactions')
    .select(['type', 'amount'])
    .where('user_id', '=', user.id)
    .execute()
  expect(ledger).toEqual([{ type: 'earn', amount: 10 }])

  // Signing in again, even after the Google address changed, finds the same account.
  const again = await signedInUser(
    await signInWithGoogle({ sub: 'g-new', email: 'renamed@gmail.com', email_verified: true, name: 'Fresh Face' }),
  )
  expect(again.id).toBe(user.id)
})

test('a verified account with the same email is linked and keeps its password', async () => {
  const { user } = await createTestUser({ email: 'linked@example.com', password: 'my-password' })
  await getDb().updateTable('users').set({ email_verified: true }).where('id', '=', user.id).execute()
  const signedIn = await signedInUser(
    await signInWithGoogle({ sub: 'g-linked', email: 'linked@example.com', email_verified: true, name: 'Other Name' }),
  )
  expect(signedIn).toMatchObject({ id: user.id, google_id: 'g-linked', name: user.name })
  const answer = await callRoute(
    login,
    makeRequest('/api/auth/login', { json: { email: 'linked@example.com', password: 'my-password' } }),
  )
  expect(answer.status).toBe(200)
})

test('an unverified account with the same email is linked, but its password and sessions stop working', async () => {
  const { user, token } = await createTestUser({ email: 'squatted@example.com', password: 'squatter-pass' })
  const signedIn = await signedInUser(
    await signInWithGoogle({ sub: 'g-owner', email: 'squatted@example.com', email_verified: true, name: 'Owner' }),
  )
  expect(signedIn.id).toBe(user.id)
  expect(signedIn.password_hash).toBeNull()
  expect(await findSessionUser(getDb(), token)).toBeUndefined()
})

test('a state that does not match the cookie is refused, and nobody is signed in or created', async () => {
  const response = await signInWithGoogle(
    { sub: 'g-csrf', email: 'csrf@gmail.com', email_verified: true, name: 'Csrf' },
    (callback) => callback.searchParams.set('state', 'attacker-state'),
  )
  refusedToLogin(response)
  expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith('pawtrait_session='))).toBe(false)
  expect(await findUserByEmail(getDb(), 'csrf@gmail.com')).toBeUndefined()
})

test('a callback without the state cookie is refused', async () => {
  const start = await callRoute(googleStart, makeRequest('/api/auth/google'))
  const consent = await fetch(start.headers.get('location')!, { redirect: 'manual' })
  const callback = new URL(consent.headers.get('location')!)
  refusedToLogin(await callRoute(googleCallback, makeRequest(callback.pathname + callback.search)))
})

test('an unverified Google email and a banned account are refused', async () => {
  refusedToLogin(
    await signInWithGoogle({ sub: 'g-unverified', email: 'unverified@gmail.com', email_verified: false, name: 'U' }),
  )
  expect(await findUserByEmail(getDb(), 'unverified@gmail.com')).toBeUndefined()

  const { user } = await createTestUser({ email: 'banned-google@example.com' })
  await getDb().updateTable('users').set({ is_banned: true }).where('id', '=', user.id).execute()
  refusedToLogin(
    await signInWithGoogle({ sub: 'g-banned', email: 'banned-google@example.com', email_verified: true, name: 'B' }),
  )
})
