import { getOptionalUser } from '#domain/sessions/auth.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { revokeUserSessions } from '#domain/sessions/session.server.ts'
import { createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { getSessionCookie } from '#domain/sessions/auth.server.ts'

test('the session token is accepted from x-auth-token, auth-token, Bearer and the cookie', async () => {
  const { user, token } = await createTestUser()
  const cookie = await getSessionCookie().serialize(token)
  const variants: Record<string, string>[] = [
    { 'x-auth-token': token },
    { 'auth-token': token },
    { authorization: `Bearer ${token}` },
    { cookie: cookie.split(';')[0] },
  ]
  for (const headers of variants) {
    const found = await getOptionalUser(makeRequest('/api/auth/me', { headers }))
    expect(found?.id).toBe(user.id)
  }
  expect(await getOptionalUser(makeRequest('/api/auth/me', { headers: { 'x-auth-token': 'forged' } }))).toBeNull()
})

test('tokens are stored hashed, never in clear', async () => {
  const { token } = await createTestUser()
  const rows = await getDb().selectFrom('sessions').select('token_hash').execute()
  expect(rows.some((row) => row.token_hash === token)).toBe(false)
})

test('requireUser refuses the API with a 401 HttpError and redirects pages to /login', async () => {
  const api = await requireUser(makeRequest('/api/auth/me')).catch((error: unknown) => error)
  expect(api).toBeInstanceOf(HttpError)
  expect(api).toMatchObject({ status: 401, message: 'Authentication expired, please log in again' })

  const page = (await requireUser(makeRequest('/history?page=2')).catch((error: Response) => error)) as Response
  expect(page.status).toBe(302)
  expect(page.headers.get('location')).toBe('/login?redirectTo=%2Fhistory%3Fpage%3D2')
})

test('a banned user and a revoked session stop working at once', async () => {
  const banned = await createTestUser()
  await getDb().updateTable('users').set({ is_banned: true }).where('id', '=', banned.user.id).execute()
  expect(await getOptionalUser(makeRequest('/', { token: banned.token }))).toBeNull()

  const revoked = await createTestUser()
  await revokeUserSessions(getDb(), revoked.user.id)
  expect(await getOptionalUser(makeRequest('/', { token: revoked.token }))).toBeNull()
})
