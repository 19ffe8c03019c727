import { createSession } from '#domain/sessions/session.server.ts'
import { getDb } from '#platform/db.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { readEventStream } from '#tests/helpers/event-stream.ts'
import { withOwnDataDir } from '#tests/helpers/generation.ts'
import { startWebProcess } from '#tests/helpers/web-process.ts'

// Decision 0027: a revoked session's live streams end within 5 s on every web process (the
// sessions trigger's NOTIFY), and each stream's session is also checked again periodically.

withOwnDataDir()
const db = getDb()

/** Streams are opened here; its periodic check (the default minute) cannot be what ends them within 5 s. */
let streams: Awaited<ReturnType<typeof startWebProcess>>
/** Sign-outs, password changes, bans and deletions are made here, another process. */
let actions: Awaited<ReturnType<typeof startWebProcess>>
/** A process that checks its streams' sessions every second. */
let checking: Awaited<ReturnType<typeof startWebProcess>>

beforeAll(async () => {
  ;[streams, actions, checking] = await Promise.all([
    startWebProcess({ LIVE_UPDATES_HEARTBEAT_MS: '500' }),
    startWebProcess(),
    startWebProcess({ LIVE_UPDATES_SESSION_CHECK_MS: '1000' }),
  ])
})
afterAll(async () => {
  await Promise.all([streams?.stop(), actions?.stop(), checking?.stop()])
})

async function openStream(token: string, origin = streams.origin) {
  const response = await fetch(`${origin}/api/tasks/events`, { headers: { 'x-auth-token': token } })
  expect(response.status).toBe(200)
  // Registered on this process before the answer's headers left it.
  return readEventStream(response)
}

/** Answers how long the stream took to end, and whether it said why first. */
async function ended(stream: ReturnType<typeof readEventStream>, since: number, timeoutMs = 5_000) {
  const result = await Promise.race([
    stream.ended.then(() => 'ended' as const),
    new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), timeoutMs)),
  ])
  return { result, ms: Date.now() - since, revoked: stream.events.some((event) => event.event === 'revoked') }
}

const api = (path: string, token: string, init: { method: string; json?: unknown }) =>
  fetch(`${actions.origin}${path}`, {
    method: init.method,
    headers: { 'x-auth-token': token, 'content-type': 'application/json' },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  })

test('a logout on another web process ends the streams of that session within 5 s, and only those', async () => {
  const { user, token } = await createTestUser()
  const { token: otherSession } = await createSession(db, user.id)
  const { token: strangerToken } = await createTestUser()
  const [revoked, sameUserOtherSession, stranger] = await Promise.all([
    openStream(token),
    openStream(otherSession),
    openStream(strangerToken),
  ])

  const start = Date.now()
  expect((await api('/api/auth/logout', token, { method: 'POST' })).status).toBe(200)
  expect(await ended(revoked, start)).toMatchObject({ result: 'ended', revoked: true })

  // The user's other session and another user's stream are still open and pinged.
  const pings = [sameUserOtherSession.comments.length, stranger.comments.length]
  await new Promise((resolve) => setTimeout(resolve, 1_200))
  expect(sameUserOtherSession.comments.length).toBeGreaterThan(pings[0])
  expect(stranger.comments.length).toBeGreaterThan(pings[1])
  expect(sameUserOtherSession.events.some((event) => event.event === 'revoked')).toBe(false)
  await Promise.all([sameUserOtherSession.close(), stranger.close()])
})

test('a password change elsewhere ends the streams of the other sessions within 5 s; its own session keeps its stream', async () => {
  const { user, token } = await createTestUser({ password: 'old-password-1' })
  const { token: changer } = await createSession(db, user.id)
  const [elsewhere, own] = await Promise.all([openStream(token), openStream(changer)])

  const start = Date.now()
  const response = await api('/api/auth/update-profile', changer, {
    method: 'PUT',
    json: { name: user.name, password: 'new-password-2', currentPassword: 'old-password-1' },
  })
  expect(response.status).toBe(200)
  expect(await ended(elsewhere, start)).toMatchObject({ result: 'ended', revoked: true })
  expect(await ended(own, Date.now(), 1_500)).toMatchObject({ result: 'open', revoked: false })
  await own.close()
})

test.each([
  [
    'a ban',
    (id: string, admin: string) =>
      api(`/api/userManagement/users/${id}/ban`, admin, { method: 'PUT', json: { isBanned: true } }),
  ],
  ['a deletion', (id: string, admin: string) => api(`/api/userManagement/users/${id}`, admin, { method: 'DELETE' })],
])('%s made on another web process ends all the user’s streams within 5 s', async (_, act) => {
  const { user, token } = await createTestUser()
  const { token: secondSession } = await createSession(db, user.id)
  const { token: admin } = await createTestUser({ role: 'superadmin' })
  const open = await Promise.all([openStream(token), openStream(secondSession)])

  const start = Date.now()
  expect((await act(user.id, admin)).status).toBe(200)
  for (const stream of open) expect(await ended(stream, start)).toMatchObject({ result: 'ended', revoked: true })
})

test('a session revoked without a notice (expired in SQL) still ends its stream at the next periodic check', async () => {
  const { user, token } = await createTestUser()
  const [checked, unchecked] = await Promise.all([openStream(token, checking.origin), openStream(token)])

  // An update, not a delete: no trigger announces it.
  await db
    .updateTable('sessions')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('user_id', '=', user.id)
    .execute()
  const start = Date.now()
  expect(await ended(checked, start, 3_000)).toMatchObject({ result: 'ended', revoked: true })
  // The process that checks once a minute (the default) has not noticed yet: the check is what ended it.
  expect(await ended(unchecked, start, 500)).toMatchObject({ result: 'open' })
  await unchecked.close()
})
