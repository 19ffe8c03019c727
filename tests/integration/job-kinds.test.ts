import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { getDb } from '#platform/db.server.ts'
import { enqueueJob, jobKinds, type JobName } from '#platform/jobs.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'

/** jobKinds (platform/jobs.server.ts) is every job's attempts and priority, wherever the job is added. */

const db = getDb()
const jobOf = async (key: string) =>
  (
    await sql<{ task_identifier: string; max_attempts: number; priority: number }>`
      SELECT task_identifier, max_attempts, priority FROM graphile_worker.jobs WHERE key = ${key}
    `.execute(db)
  ).rows[0]

test('enqueueJob gives every kind of job the attempts and priority of its row', async () => {
  for (const name of Object.keys(jobKinds) as JobName[]) {
    await enqueueJob(db, name, {} as never, { jobKey: `kinds:${name}`, runAt: new Date(Date.now() + 3_600_000) })
    expect(await jobOf(`kinds:${name}`)).toEqual({
      task_identifier: name,
      max_attempts: jobKinds[name].maxAttempts,
      priority: jobKinds[name].priority,
    })
  }
})

test("the live-updates trigger queues send_task_end_email with the table's attempts and priority", async () => {
  const { user } = await createTestUser({ credits: 0 })
  const id = randomUUID()
  await db
    .insertInto('generation_tasks')
    .values({
      id,
      user_id: user.id,
      kind: 'video',
      source: 'generate',
      params: '{}',
      input_keys: [],
      credit_cost: 0,
      provider: 'local',
    })
    .execute()
  await db.updateTable('generation_tasks').set({ status: 'failed', error: 'test' }).where('id', '=', id).execute()
  expect(await jobOf(`task-end-email:${id}`)).toEqual({
    task_identifier: 'send_task_end_email',
    max_attempts: jobKinds.send_task_end_email.maxAttempts,
    priority: jobKinds.send_task_end_email.priority,
  })
})
