/**
 * Issue 38, item 6: a visitor is no referral when they register from a network the sharer used in
 * the last 30 days (any signed-in request or sign-in; the IPv4 address, the IPv6 /64 or its /48),
 * and the monthly cap of rewards counts a record that stays when a visitor deletes their account.
 * Through the real routes and domain functions against PostgreSQL.
 */
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { loader as meLoader } from '#app/routes/api.auth.me.ts'
import { register } from '#domain/accounts/account.server.ts'
import { rememberSignInAddress } from '#domain/accounts/sign-in-addresses.server.ts'
import { saveSystemConfig } from '#domain/credits/system-config.server.ts'
import { reviewPaymentProof } from '#domain/payments/payments.server.ts'
import { deleteAccount } from '#domain/user-management/account-deletion.server.ts'
import { CLIENT_ADDRESS_HEADER } from '#platform/client-address.server.ts'
import { getDb } from '#platform/db.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { withOwnDataDir } from '#tests/helpers/generation.ts'

withOwnDataDir()
const db = getDb()
let counter = 0

/** A user with a share page (its row only: referrals read the slug and its owner). */
async function sharerWithPage() {
  const sharer = await createTestUser()
  const task = await db
    .insertInto('generation_tasks')
    .values({
      user_id: sharer.user.id,
      kind: 'image',
      status: 'completed',
      params: {},
      credit_cost: 2,
      provider: 'local',
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const slug = randomBytes(16).toString('base64url')
  await db
    .insertInto('share_pages')
    .values({ slug, user_id: sharer.user.id, task_id: task.id, version_index: 0, image_key: 'x', card_key: 'y' })
    .execute()
  return { ...sharer, slug }
}

async function visitor(slug: string, ip: string) {
  counter += 1
  const email = `visitor${counter}-${Date.now()}@example.com`
  const { user } = await register(db, { name: `Visitor ${counter}`, email, password: 'password123' }, ip, slug)
  const row = await db.selectFrom('users').select('referrer_id').where('id', '=', user.id).executeTakeFirstOrThrow()
  return { id: user.id, referrerId: row.referrer_id }
}

/** Moves every address the user was seen or signed in at `days` into the past. */
async function age(userId: string, days: number) {
  const when = sql<Date>`now() - make_interval(days => ${days})`
  await db.updateTable('seen_addresses').set({ last_seen_at: when }).where('user_id', '=', userId).execute()
  await db.updateTable('sign_in_addresses').set({ last_seen_at: when }).where('user_id', '=', userId).execute()
}

test('an IPv4 address the sharer signed in from 10 days ago: the visitor from it is no referral', async () => {
  const sharer = await sharerWithPage()
  await rememberSignInAddress(db, sharer.user.id, '192.0.2.44')
  await age(sharer.user.id, 10)
  expect((await visitor(sharer.slug, '192.0.2.44')).referrerId).toBeNull()
  // Another address is a referral.
  expect((await visitor(sharer.slug, '192.0.2.45')).referrerId).toBe(sharer.user.id)
})

test('an address the sharer only used with a session (no sign-in there) counts too', async () => {
  const sharer = await sharerWithPage()
  const me = await callRoute(
    meLoader,
    makeRequest('/api/auth/me', { token: sharer.token, headers: { [CLIENT_ADDRESS_HEADER]: '198.51.100.20' } }),
  )
  expect(me.status).toBe(200)
  expect((await visitor(sharer.slug, '198.51.100.20')).referrerId).toBeNull()
})

test('IPv6: the same /48 (another /64) is no referral; an address last used 40 days ago is forgotten', async () => {
  const sharer = await sharerWithPage()
  await rememberSignInAddress(db, sharer.user.id, '2001:db8:5:1::5')
  expect((await visitor(sharer.slug, '2001:db8:5:2::9')).referrerId).toBeNull()
  expect((await visitor(sharer.slug, '2001:db8:6:1::9')).referrerId).toBe(sharer.user.id)

  await age(sharer.user.id, 40)
  expect((await visitor(sharer.slug, '2001:db8:5:3::9')).referrerId).toBe(sharer.user.id)
})

test("the month's cap counts rewards whose visitors deleted their accounts", async () => {
  const settings = {
    newUserBonusCredits: 10,
    imageGenerationCreditCost: 2,
    videoGenerationCreditCost: 20,
    fastVideoGenerationCreditCost: 10,
  }
  await saveSystemConfig(db, { ...settings, referralMaxPerMonth: 1 })
  const admin = await createTestUser({ role: 'superadmin' })
  const sharer = await sharerWithPage()
  const credits = async () =>
    (await db.selectFrom('users').select('credits').where('id', '=', sharer.user.id).executeTakeFirstOrThrow()).credits
  async function firstPurchase(userId: string) {
    const proof = await db
      .insertInto('payment_proofs')
      .values({
        user_id: userId,
        payment_method: 'usdt_trc20',
        transaction_id: randomBytes(32).toString('hex'),
        credit_amount: 100,
        amount_cents: 100,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    await reviewPaymentProof(db, { proofId: proof.id, reviewer: { id: admin.user.id }, approved: true })
  }
  const before = await credits()
  const first = await visitor(sharer.slug, '203.0.113.71')
  await firstPurchase(first.id)
  expect(await credits()).toBe(before + 20)

  await deleteAccount(db, first.id)
  const second = await visitor(sharer.slug, '203.0.113.72')
  expect(second.referrerId).toBe(sharer.user.id)
  await firstPurchase(second.id)
  expect(await credits()).toBe(before + 20)
  const lines = await db
    .selectFrom('credit_transactions')
    .select('description')
    .where('user_id', '=', second.id)
    .where('description', 'like', 'Referral%')
    .execute()
  expect(lines).toEqual([{ description: expect.stringContaining('reached this month’s referral limit') }])
})
