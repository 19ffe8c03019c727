import { createSession } from '#domain/sessions/session.server.ts'
import { getDb } from '#platform/db.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { withOwnDataDir } from '#tests/helpers/generation.ts'
import { startWebProcess } from '#tests/helpers/web-process.ts'
import { waitFor } from '#tests/helpers/worker-process.ts'

// Decision 0045: a web process answers task reads from its session cache, and a logout, password
// change or ban made on another web process is honoured there at once (the sessions triggers'
// NOTIFY, decision 0027), not when the cached entry ages out.

withOwnDataDir()
const db = getDb()

/** Task reads are made here, with the cache kept a minute: only a notice can end an entry early. */
let reads: Awaited<ReturnType<typeof startWebProcess>>
/** Logouts, password changes and bans are made here, another process. */
let actions: Awaited<ReturnType<typeof startWebProcess>>
/** A cache kept one second: a revocation no trigger announces is honoured when the entry ages out. */
let shortLived: Awaited<ReturnType<typeof startWebProcess>>

beforeAll(async () => {
  ;[reads, actions, shortLived] = await Promise.all([
    startWebProcess({ SESSION_CACHE_MS: '60000' }),
    startWebProcess({ SESSION_CACHE_MS: '60000' }),
    startWebProcess({ SESSION_CACHE_MS: '1000' }),
  ])
  // The cache listens from its first use, and answers nothing from memory before it hears.
  const { user, token } = await createTestUser()
  const taskId = await ownTask(user.id)
  for (const process of [reads, actions, shortLived]) {
    await readTask(process.origin, taskId, token)
    await waitFor(() => process.output.join('').includes('listening for task changes'), { timeout: 10_000 })
  }
})
afterAll(async () => {
  await Promise.all([reads?.stop(), actions?.stop(), shortLived?.stop()])
})

async function ownTask(userId: string) {
  const task = await db
    .insertInto('generation_tasks')
    .values({ user_id: userId, kind: 'image', credit_cost: 2, provider: 'local', params: '{}' })
    .returning('id')
    .executeTakeFirstOrThrow()
  return task.id
}

const readTask = async (origin: string, taskId: string, token: string) =>
  (await fetch(`${origin}/api/async-image/task/${taskId}`, { headers: { 'x-auth-token': token } })).status

/** Reads until the answer is 401: how long that took after `since` (Infinity past `timeoutMs`). */
async function refusedWithin(origin: string, taskId: string, token: string, since: number, timeoutMs = 2_000) {
  while (Date.now() - since < timeoutMs) {
    if ((await readTask(origin, taskId, token)) === 401) return Date.now() - since
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return Infinity
}

const api = (path: string, token: string, init: { method: string; json?: unknown }) =>
  fetch(`${actions.origin}${path}`, {
    method: init.method,
    headers: { 'x-auth-token': token, 'content-type': 'application/json' },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  })

test('a session whose expiry was moved in SQL (no notice) is still answered from the cache until the entry ages out', async () => {
  const { user, token } = await createTestUser()
  const taskId = await ownTask(user.id)
  expect(await readTask(reads.origin, taskId, token)).toBe(200)
  expect(await readTask(shortLived.origin, taskId, token)).toBe(200)
  // An update, not a delete: no trigger announces it, so only the cache can still let it in.
  await db
    .updateTable('sessions')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('user_id', '=', user.id)
    .execute()
  const since = Date.now()
  expect(await readTask(reads.origin, taskId, token)).toBe(200)
  expect(await refusedWithin(shortLived.origin, taskId, token, since, 3_000)).toBeLessThan(3_000)
  // A process that never read this session asks the database.
  expect(await readTask(actions.origin, taskId, token)).toBe(401)
})

test('a logout on another web process is honoured at once there; the user’s other session still reads', async () => {
  const { user, token } = await createTestUser()
  const { token: otherSession } = await createSession(db, user.id)
  const taskId = await ownTask(user.id)
  for (const session of [token, otherSession]) expect(await readTask(reads.origin, taskId, session)).toBe(200)

  expect((await api('/api/auth/logout', token, { method: 'POST' })).status).toBe(200)
  expect(await refusedWithin(reads.origin, taskId, token, Date.now())).toBeLessThan(1_000)
  expect(await readTask(reads.origin, taskId, otherSession)).toBe(200)
})

test('a password change on another web process ends the other sessions there at once; its own session reads on', async () => {
  const { user, token } = await createTestUser({ password: 'old-password-1' })
  const { token: changer } = await createSession(db, user.id)
  const taskId = await ownTask(user.id)
  for (const session of [token, changer]) expect(await readTask(reads.origin, taskId, session)).toBe(200)

  const response = await api('/api/auth/update-profile', changer, {
    method: 'PUT',
    json: { name: user.name, password: 'new-password-2', currentPassword: 'old-password-1' },
  })
  expect(response.status).toBe(200)
  expect(await refusedWithin(reads.origin, taskId, token, Date.now())).toBeLessThan(1_000)
  expect(await readTask(reads.origin, taskId, changer)).toBe(200)
})

test('a ban on another web process refuses every session of the user there at once', async () => {
  const { user, token } = await createTestUser()
  const { token: secondSession } = await createSession(db, user.id)
  const { token: admin } = await createTestUser({ role: 'superadmin' })
  const taskId = await ownTask(user.id)
  for (const session of [token, secondSession]) expect(await readTask(reads.origin, taskId, session)).toBe(200)

  const since = Date.now()
  const ban = await api(`/api/userManagement/users/${user.id}/ban`, admin, { method: 'PUT', json: { isBanned: true } })
  expect(ban.status).toBe(200)
  for (const session of [token, secondSession]) {
    expect(await refusedWithin(reads.origin, taskId, session, since)).toBeLessThan(1_000)
  }
})
