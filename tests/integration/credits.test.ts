import { grantCredits, setCredits, spendCredits } from '#domain/credits/credits.server.ts'
import { getDb } from '#platform/db.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'

async function balance(userId: string) {
  const db = getDb()
  const { credits } = await db.selectFrom('users').select('credits').where('id', '=', userId).executeTakeFirstOrThrow()
  const { sum } = await db
    .selectFrom('credit_transactions')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('sum'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return { credits, ledger: Number(sum) }
}

test('new users get the configured bonus as an earn entry, and credits always equal the ledger', async () => {
  const { user } = await createTestUser()
  expect(await balance(user.id)).toEqual({ credits: 10, ledger: 10 })
  const [entry] = await getDb().selectFrom('credit_transactions').selectAll().where('user_id', '=', user.id).execute()
  expect(entry).toMatchObject({ type: 'earn', amount: 10 })
})

test('many parallel spends never overdraw', async () => {
  const { user } = await createTestUser({ credits: 10 })
  const attempts = Array.from({ length: 20 }, () =>
    getDb()
      .transaction()
      .execute((tx) => spendCredits(tx, { userId: user.id, cost: 2, description: 'Image generation' })),
  )
  const results = await Promise.all(attempts)
  expect(results.filter(Boolean)).toHaveLength(5)
  expect(await balance(user.id)).toEqual({ credits: 0, ledger: 0 })
})

test('a refund tied to a task can be booked only once', async () => {
  const { user } = await createTestUser({ credits: 5 })
  const task = await getDb()
    .insertInto('generation_tasks')
    .values({ user_id: user.id, kind: 'image', params: {}, credit_cost: 2, provider: 'local' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const refund = () =>
    getDb()
      .transaction()
      .execute((tx) =>
        grantCredits(tx, { userId: user.id, type: 'earn', amount: 2, description: 'Refund', taskId: task.id }),
      )
  await refund()
  await expect(refund()).rejects.toThrow(/credit_transactions_refund_once/)
  expect(await balance(user.id)).toEqual({ credits: 7, ledger: 7 })
})

test('setting a balance by hand writes the difference as an adjustment', async () => {
  const { user } = await createTestUser({ credits: 10 })
  await getDb()
    .transaction()
    .execute((tx) => setCredits(tx, user.id, 3, 'Adjusted by an administrator'))
  expect(await balance(user.id)).toEqual({ credits: 3, ledger: 3 })
  const adjustment = await getDb()
    .selectFrom('credit_transactions')
    .selectAll()
    .where('user_id', '=', user.id)
    .where('type', '=', 'adjustment')
    .executeTakeFirstOrThrow()
  expect(adjustment.amount).toBe(-7)
})
