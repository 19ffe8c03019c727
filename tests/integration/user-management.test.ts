import { randomUUID } from 'node:crypto'
import { spendCredits, grantCredits } from '#domain/credits/credits.server.ts'
import type { Role } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'
import { getOptionalUser } from '#domain/sessions/auth.server.ts'
import { zhUserManagement as t } from '#app/user-management/zh-user-management.ts'
import { loader as listLoader, action as createAction } from '#app/routes/api.userManagement.users.ts'
import { action as deleteAction } from '#app/routes/api.userManagement.users.$id.ts'
import { action as creditsAction } from '#app/routes/api.userManagement.users.$id.credits.ts'
import { action as banAction } from '#app/routes/api.userManagement.users.$id.ban.ts'
import { loader as consumptionLoader } from '#app/routes/api.userManagement.stats.consumption.ts'
import { action as pageAction, loader as pageLoader } from '#app/routes/user-management.tsx'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'

const tokens = {} as Record<Role, string>
let superadminId: string

beforeAll(async () => {
  for (const role of ['user', 'admin', 'superadmin'] as const) {
    const { user, token } = await createTestUser({ role })
    tokens[role] = token
    if (role === 'superadmin') superadminId = user.id
  }
})

const asSuperadmin = (path: string, options: Parameters<typeof makeRequest>[1] = {}) =>
  makeRequest(path, { token: tokens.superadmin, ...options })

function ledger(userId: string) {
  return getDb()
    .selectFrom('credit_transactions')
    .select(['type', 'amount', 'description'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute()
}

describe('every endpoint: guest 401, user 403, admin 403, superadmin allowed', () => {
  type Call = (token: string | undefined, targetId: string) => Promise<Response>
  const endpoints: Array<[string, Call, number]> = [
    ['GET users', (token) => callRoute(listLoader, makeRequest('/api/userManagement/users', { token })), 200],
    [
      'GET stats/consumption',
      (token) => callRoute(consumptionLoader, makeRequest('/api/userManagement/stats/consumption', { token })),
      200,
    ],
    [
      'POST users',
      (token) =>
        callRoute(
          createAction,
          makeRequest('/api/userManagement/users', {
            token,
            json: { email: `new-${randomUUID()}@example.com`, password: 'secret1', name: 'New' },
          }),
        ),
      201,
    ],
    [
      'PUT users/{id}/credits',
      (token, id) =>
        callRoute(
          creditsAction,
          makeRequest(`/api/userManagement/users/${id}/credits`, { token, method: 'PUT', json: { credits: 5 } }),
          { id },
        ),
      200,
    ],
    [
      'PUT users/{id}/ban',
      (token, id) =>
        callRoute(
          banAction,
          makeRequest(`/api/userManagement/users/${id}/ban`, { token, method: 'PUT', json: { isBanned: false } }),
          { id },
        ),
      200,
    ],
    [
      'DELETE users/{id}',
      (token, id) =>
        callRoute(deleteAction, makeRequest(`/api/userManagement/users/${id}`, { token, method: 'DELETE' }), { id }),
      200,
    ],
  ]

  test.each(endpoints)('%s', async (_name, call, allowedStatus) => {
    const { user: target } = await createTestUser()
    expect((await call(undefined, target.id)).status).toBe(401)
    expect((await call(tokens.user, target.id)).status).toBe(403)
    expect((await call(tokens.admin, target.id)).status).toBe(403)
    expect((await call(tokens.superadmin, target.id)).status).toBe(allowedStatus)
  })
})

describe('the user list and new users', () => {
  const create = (json: unknown) => callRoute(createAction, asSuperadmin('/api/userManagement/users', { json }))

  test('lists every user with the spec fields', async () => {
    const response = await callRoute(listLoader, asSuperadmin('/api/userManagement/users'))
    const users = (await response.json()) as Array<Record<string, unknown>>
    expect(users.find((user) => user.id === superadminId)).toMatchObject({
      _id: superadminId,
      role: 'superadmin',
      isBanned: false,
      lastLogin: null,
      createdAt: expect.any(String),
    })
  })

  test('creates a user with 10 credits by default, booked in the ledger, and accepts role "normal"', async () => {
    const email = `Created-${randomUUID()}@Example.com`
    const response = await create({ email, password: 'secret1', name: ' Created ', role: 'normal' })
    expect(response.status).toBe(201)
    const user = await response.json()
    expect(user).toMatchObject({ email: email.toLowerCase(), name: 'Created', role: 'user', credits: 10 })
    expect(await ledger(user.id)).toEqual([
      { type: 'earn', amount: 10, description: 'Initial credits from an administrator' },
    ])

    const again = await create({ email, password: 'secret1', name: 'Again' })
    expect(again.status).toBe(409)
    expect(await again.json()).toEqual({ message: 'A user with this email already exists' })
  })

  test('creates an admin with chosen credits', async () => {
    const response = await create({
      email: `admin-${randomUUID()}@example.com`,
      password: 'secret1',
      name: 'A',
      role: 'admin',
      credits: 0,
    })
    expect(await response.json()).toMatchObject({ role: 'admin', credits: 0 })
  })

  test.each([
    [{ email: 'not-an-email', password: 'secret1', name: 'X' }, 'Please enter a valid email address'],
    [{ email: 'short@example.com', password: '123', name: 'X' }, 'Password must be at least 6 characters long'],
    [{ email: 'noname@example.com', password: 'secret1', name: '  ' }, 'Name is required'],
    [
      { email: 'role@example.com', password: 'secret1', name: 'X', role: 'owner' },
      'Role must be user, admin or superadmin',
    ],
    [
      { email: 'neg@example.com', password: 'secret1', name: 'X', credits: -1 },
      'Credits must be a whole number of 0 or more',
    ],
    [
      { email: 'big@example.com', password: 'secret1', name: 'X', credits: 5_000_000_000 },
      'Credits cannot exceed 1000000000',
    ],
  ])('refuses %o with 400', async (json, message) => {
    const response = await create(json)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ message })
  })
})

describe('credits, bans and deletion', () => {
  const setCredits = (id: string, json: unknown) =>
    callRoute(creditsAction, asSuperadmin(`/api/userManagement/users/${id}/credits`, { method: 'PUT', json }), { id })
  const setBan = (id: string, isBanned: unknown) =>
    callRoute(banAction, asSuperadmin(`/api/userManagement/users/${id}/ban`, { method: 'PUT', json: { isBanned } }), {
      id,
    })
  const remove = (id: string) =>
    callRoute(deleteAction, asSuperadmin(`/api/userManagement/users/${id}`, { method: 'DELETE' }), { id })

  test('setting credits writes the difference to the ledger as an adjustment', async () => {
    const { user } = await createTestUser({ credits: 10 })
    const response = await setCredits(user.id, { credits: 55 })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ id: user.id, credits: 55 })
    expect((await setCredits(user.id, { credits: 0 })).status).toBe(200)
    expect(await ledger(user.id)).toEqual([
      expect.objectContaining({ type: 'earn', amount: 10 }),
      { type: 'adjustment', amount: 45, description: 'Balance set by an administrator' },
      { type: 'adjustment', amount: -55, description: 'Balance set by an administrator' },
    ])
  })

  test.each([[{ credits: -1 }], [{ credits: 1.5 }], [{ credits: 'abc' }], [{}]])(
    'refuses credits %o with 400',
    async (json) => {
      const { user } = await createTestUser()
      const response = await setCredits(user.id, json)
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ message: 'Credits must be a whole number of 0 or more' })
    },
  )

  test('unknown or malformed ids are 404', async () => {
    expect((await setCredits(randomUUID(), { credits: 1 })).status).toBe(404)
    expect((await setBan('not-a-uuid', true)).status).toBe(404)
    expect((await remove(randomUUID())).status).toBe(404)
  })

  test('a banned user is logged out at once; unbanning lifts the ban', async () => {
    const { user, token } = await createTestUser()
    const asUser = makeRequest('/', { token })
    expect(await getOptionalUser(asUser)).toMatchObject({ id: user.id })

    const banned = await setBan(user.id, true)
    expect(await banned.json()).toMatchObject({ id: user.id, isBanned: true })
    expect(await getOptionalUser(asUser)).toBeNull()
    const sessions = await getDb().selectFrom('sessions').select('user_id').where('user_id', '=', user.id).execute()
    expect(sessions).toEqual([])

    expect(await (await setBan(user.id, false)).json()).toMatchObject({ isBanned: false })
    expect((await setBan(user.id, 'yes')).status).toBe(400)
  })

  test('a superadmin can be neither banned nor deleted', async () => {
    const { user: other } = await createTestUser({ role: 'superadmin' })
    for (const response of [await setBan(other.id, true), await remove(other.id)]) {
      expect(response.status).toBe(403)
      expect(await response.json()).toEqual({ message: 'Super administrators cannot be banned or deleted' })
    }
    const row = await getDb().selectFrom('users').select('is_banned').where('id', '=', other.id).executeTakeFirst()
    expect(row).toEqual({ is_banned: false })
  })

  test('deleting removes the user and their sessions', async () => {
    const { user, token } = await createTestUser()
    const response = await remove(user.id)
    expect(await response.json()).toEqual({ message: 'User deleted' })
    expect(await getDb().selectFrom('users').select('id').where('id', '=', user.id).executeTakeFirst()).toBeUndefined()
    expect(await getOptionalUser(makeRequest('/', { token }))).toBeNull()
    expect((await remove(user.id)).status).toBe(404)
  })
})

test('the consumption ranking orders users by credits spent, refunds deducted', async () => {
  const { user: big } = await createTestUser({ credits: 100 })
  const { user: small } = await createTestUser({ credits: 100 })
  await getDb()
    .transaction()
    .execute(async (tx) => {
      await spendCredits(tx, { userId: big.id, cost: 40, description: 'Image generation' })
      await spendCredits(tx, { userId: small.id, cost: 30, description: 'Image generation' })
      const task = await tx
        .insertInto('generation_tasks')
        .values({ user_id: small.id, kind: 'image', credit_cost: 20, provider: 'local', params: {} })
        .returning('id')
        .executeTakeFirstOrThrow()
      await grantCredits(tx, { userId: small.id, type: 'earn', amount: 20, description: 'Refund', taskId: task.id })
    })

  const ranking = (await (
    await callRoute(consumptionLoader, asSuperadmin('/api/userManagement/stats/consumption'))
  ).json()) as Array<Record<string, unknown>>
  const position = (id: string) => ranking.findIndex((row) => row.id === id)
  expect(ranking[position(big.id)]).toEqual({
    id: big.id,
    name: big.name,
    email: big.email,
    totalSpent: 40,
    credits: 60,
    lastLogin: null,
  })
  expect(ranking[position(small.id)]).toMatchObject({ totalSpent: 10, credits: 90 })
  expect(position(big.id)).toBeLessThan(position(small.id))

  // Once the failed task is deleted (or expires) its refund still counts as one.
  await getDb().deleteFrom('generation_tasks').where('user_id', '=', small.id).execute()
  const after = (await (
    await callRoute(consumptionLoader, asSuperadmin('/api/userManagement/stats/consumption'))
  ).json()) as Array<Record<string, unknown>>
  expect(after.find((row) => row.id === small.id)).toMatchObject({ totalSpent: 10, credits: 90 })
})

describe('/user-management page', () => {
  const form = (fields: Record<string, string>) => {
    const body = new URLSearchParams(fields)
    return { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } }
  }
  const post = (fields: Record<string, string>, token = tokens.superadmin) =>
    callRoute(pageAction, makeRequest('/user-management', { token, method: 'POST', ...form(fields) }))

  test('everyone but a superadmin gets the restricted message', async () => {
    // The page's error boundary shows t.restricted for both refusals.
    const guest = await callRoute(pageLoader, makeRequest('/user-management'))
    expect(guest.status).toBe(401)
    for (const token of [tokens.user, tokens.admin]) {
      const response = await callRoute(pageLoader, makeRequest('/user-management', { token }))
      expect(response.status).toBe(403)
    }
    const denied = await post({ intent: 'ban', userId: superadminId }, tokens.admin)
    expect(denied.status).toBe(403)
    const row = await getDb().selectFrom('users').select('is_banned').where('id', '=', superadminId).executeTakeFirst()
    expect(row).toEqual({ is_banned: false })
  })

  test('a superadmin gets the users, and the ranking only when asked', async () => {
    const plain = await (
      await callRoute(pageLoader, makeRequest('/user-management', { token: tokens.superadmin }))
    ).json()
    expect(plain).toMatchObject({ showRanking: false, ranking: null })
    expect(plain.users.length).toBeGreaterThan(0)
    const withRanking = await (
      await callRoute(pageLoader, makeRequest('/user-management?ranking=1', { token: tokens.superadmin }))
    ).json()
    expect(Array.isArray(withRanking.ranking)).toBe(true)
  })

  test('the add form answers validation errors in Chinese, then adds the user', async () => {
    const invalid = await post({ intent: 'add', email: 'bad', password: '1', name: '', credits: '-3' })
    expect(invalid.status).toBe(400)
    const { result } = await invalid.json()
    expect(result.error).toMatchObject({
      email: [t.validation.emailInvalid],
      password: [t.validation.passwordTooShort],
      name: [t.validation.nameRequired],
      credits: [t.validation.creditsInvalid],
    })

    const email = `page-${randomUUID()}@example.com`
    const added = await post({ intent: 'add', email, password: 'secret1', name: '小明', role: 'user', credits: '' })
    expect(await added.json()).toMatchObject({ notice: t.success.userAdded })
    const user = await getDb()
      .selectFrom('users')
      .select(['credits', 'email_verified'])
      .where('email', '=', email)
      .executeTakeFirst()
    expect(user).toEqual({ credits: 10, email_verified: true })

    const duplicate = await post({ intent: 'add', email, password: 'secret1', name: 'x' })
    expect(duplicate.status).toBe(409)
    expect((await duplicate.json()).result.error['']).toEqual([t.refusals.emailTaken])
  })

  test('credits, ban and delete from the page; superadmins are refused in Chinese', async () => {
    const { user } = await createTestUser()
    expect(await (await post({ intent: 'credits', userId: user.id, credits: '7' })).json()).toMatchObject({
      notice: t.success.creditsUpdated,
    })
    const badCredits = await post({ intent: 'credits', userId: user.id, credits: 'x' })
    expect((await badCredits.json()).result.error.credits).toEqual([t.validation.creditsInvalid])
    expect(await (await post({ intent: 'ban', userId: user.id })).json()).toMatchObject({
      notice: t.success.userBanned,
    })
    expect(await (await post({ intent: 'unban', userId: user.id })).json()).toMatchObject({
      notice: t.success.userUnbanned,
    })

    const refused = await post({ intent: 'delete', userId: superadminId })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ error: t.refusals.superadminProtected })

    expect(await (await post({ intent: 'delete', userId: user.id })).json()).toMatchObject({
      notice: t.success.userDeleted,
    })
    const row = await getDb().selectFrom('users').select(['id']).where('id', '=', user.id).executeTakeFirst()
    expect(row).toBeUndefined()
  })
})
