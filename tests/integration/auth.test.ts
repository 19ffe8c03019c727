import { getOptionalUser, requireRole, requireUser } from '#app/utils/auth.server.ts'
import { getDb } from '#app/utils/db.server.ts'
import { revokeUserSessions } from '#app/utils/session.server.ts'
import { createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { getSessionCookie } from '#app/utils/auth.server.ts'

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

test('requireUser answers 401 JSON for the API and redirects pages to /login', async () => {
  const api = await requireUser(makeRequest('/api/auth/me')).catch((error: Response) => error)
  expect(api).toBeInstanceOf(Response)
  expect((api as Response).status).toBe(401)
  expect(await (api as Response).json()).toEqual({ message: 'Authentication expired, please log in again' })

  const page = (await requireUser(makeRequest('/history?page=2')).catch((error: Response) => error)) as Response
  expect(page.status).toBe(302)
  expect(page.headers.get('location')).toBe('/login?redirectTo=%2Fhistory%3Fpage%3D2')
})

test('requireRole lets higher roles through and refuses lower ones', async () => {
  const admin = await createTestUser({ role: 'admin' })
  const superadmin = await createTestUser({ role: 'superadmin' })
  const user = await createTestUser()

  expect((await requireRole(makeRequest('/api/x', { token: admin.token }), 'admin')).id).toBe(admin.user.id)
  expect((await requireRole(makeRequest('/api/x', { token: superadmin.token }), 'admin')).id).toBe(superadmin.user.id)
  const refused = (await requireRole(makeRequest('/api/x', { token: user.token }), 'admin').catch((e) => e)) as Response
  expect(refused.status).toBe(403)
  const page = (await requireRole(makeRequest('/analytics', { token: admin.token }), 'superadmin').catch(
    (e) => e,
  )) as Response
  expect(page.status).toBe(302)
})

test('a banned user and a revoked session stop working at once', async () => {
  const banned = await createTestUser()
  await getDb().updateTable('users').set({ is_banned: true }).where('id', '=', banned.user.id).execute()
  expect(await getOptionalUser(makeRequest('/', { token: banned.token }))).toBeNull()

  const revoked = await createTestUser()
  await revokeUserSessions(getDb(), revoked.user.id)
  expect(await getOptionalUser(makeRequest('/', { token: revoked.token }))).toBeNull()
})
