import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { getSystemConfig, saveSystemConfig } from '#domain/credits/system-config.server.ts'
import { createPaidTask, type NewTask } from '#domain/generation/paid-task.server.ts'
import { getDb, getPool } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { balanceAndLedgerSum, tasksOf } from '#tests/helpers/generation.ts'

const imageTask = (userId: string): NewTask => ({
  id: randomUUID(),
  userId,
  kind: 'image',
  source: 'generate',
  job: 'generate_image',
  params: { style: 'general' },
  inputKeys: [],
  provider: 'local',
  cost: (settings) => settings.imageGenerationCreditCost,
  description: 'Image generation',
})

const queuedTasks = (userId: string, count: number) =>
  getDb()
    .insertInto('generation_tasks')
    .values(
      Array.from({ length: count }, () => ({
        user_id: userId,
        kind: 'image' as const,
        params: '{}',
        credit_cost: 2,
        provider: 'local',
      })),
    )
    .execute()

test('a payment made while another of the same user is committing counts that one’s task, and is refused past the limit', async () => {
  const limit = getEnv().MAX_ACTIVE_TASKS_PER_USER
  const { user } = await createTestUser({ credits: 100 })
  await queuedTasks(user.id, limit - 1)
  // Another submission of this user in flight: its task written and its debit made, not committed yet.
  const other = await getPool().connect()
  try {
    await other.query('BEGIN')
    await other.query(
      `INSERT INTO generation_tasks (user_id, kind, params, credit_cost, provider) VALUES ($1, 'image', '{}', 2, 'local')`,
      [user.id],
    )
    await other.query('UPDATE users SET credits = credits - 2 WHERE id = $1', [user.id])
    const paying = createPaidTask(getDb(), imageTask(user.id))
    const outcome = paying.then(
      () => 'paid',
      (error: { status?: number }) => error.status,
    )
    // It waits for the other one's lock on the user's row...
    await new Promise((resolve) => setTimeout(resolve, 300))
    await other.query('COMMIT')
    // ...and then counts its task: the limit is reached.
    expect(await outcome).toBe(429)
  } finally {
    other.release()
  }
  expect(await tasksOf(user.id)).toHaveLength(limit)
  // Only the other submission's debit (its simulated ledger line left out).
  expect((await balanceAndLedgerSum(user.id)).balance).toBe(98)
})

test('a price changed after this process last read the prices is the one charged', async () => {
  const { user } = await createTestUser({ credits: 100 })
  const paid = await createPaidTask(getDb(), imageTask(user.id))
  const settings = await getSystemConfig(getDb())
  expect(paid.cost).toBe(settings.imageGenerationCreditCost)

  // Changed by another web process, say: this one remembers the old prices.
  await saveSystemConfig(getDb(), { ...settings, imageGenerationCreditCost: settings.imageGenerationCreditCost + 3 })
  const dearer = await createPaidTask(getDb(), imageTask(user.id))
  expect(dearer.cost).toBe(settings.imageGenerationCreditCost + 3)
  const { rows } = await sql<{ amount: number }>`
    SELECT amount FROM credit_transactions WHERE task_id = ${dearer.taskId}`.execute(getDb())
  expect(rows).toEqual([{ amount: -(settings.imageGenerationCreditCost + 3) }])
  const left = 100 - paid.cost - dearer.cost
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: left, ledgerSum: left })
})

test('too few credits: 402, and no task, ledger line or job is written', async () => {
  const { user } = await createTestUser({ credits: 1 })
  const task = imageTask(user.id)
  await expect(createPaidTask(getDb(), task)).rejects.toMatchObject({ status: 402 })
  expect(await tasksOf(user.id)).toHaveLength(0)
  const { rows } = await sql`SELECT 1 FROM graphile_worker.jobs WHERE key = ${task.id}`.execute(getDb())
  expect(rows).toHaveLength(0)
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 1, ledgerSum: 1 })
})
