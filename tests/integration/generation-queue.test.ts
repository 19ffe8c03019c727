import { sql } from 'kysely'
import sharp from 'sharp'
import { getDb } from '#platform/db.server.ts'
import { enqueueJob } from '#platform/jobs.server.ts'
import { getStorage, getMediaBytes } from '#platform/storage.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { petPhoto, photoFile, submitGeneration, withOwnDataDir } from '#tests/helpers/generation.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

// The real worker process on this file's database and media folder.
withOwnDataDir()
const db = getDb()

const task = (id: string) =>
  db.selectFrom('generation_tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

async function ledger(userId: string) {
  const rows = await db
    .selectFrom('credit_transactions')
    .select(['type', 'amount'])
    .where('user_id', '=', userId)
    .execute()
  const { credits } = await db.selectFrom('users').select('credits').where('id', '=', userId).executeTakeFirstOrThrow()
  return { credits, sum: rows.reduce((total, row) => total + row.amount, 0), types: rows.map((row) => row.type).sort() }
}

test('the worker renders a submitted task with the offline provider and completes it', async () => {
  const { token } = await createTestUser({ credits: 10 })
  const worker = startWorker({ IMAGE_PROVIDER: 'local' })
  try {
    await worker.ready()
    const { body } = await submitGeneration(token, [photoFile(await petPhoto('#8a5a2b'))], {
      style: 'fashion_male',
      clothingTop: 'a navy blazer',
    })
    const done = await waitFor(
      async () => {
        const row = await task(body.taskId)
        return row.status === 'completed' || row.status === 'failed' ? row : null
      },
      { timeout: 30_000 },
    )
    expect(done).toMatchObject({ status: 'completed', progress: 100, provider: 'local', attempts: 1 })
    const bytes = await getMediaBytes(getStorage(), done.result_key!)
    const metadata = await sharp(bytes!).metadata()
    expect(metadata).toMatchObject({ format: 'png', width: 1024, height: 1024 })
  } finally {
    await worker.stop()
  }
})

test('a worker killed mid-job: another worker picks the task up again and completes it, charged once', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  const hanging = startWorker({
    IMAGE_PROVIDER: 'instant',
    INSTANT_PROVIDER_DELAY_MS: '60000',
    TASK_HEARTBEAT_MS: '200',
  })
  const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
  await hanging.ready()
  await waitFor(async () => (await task(body.taskId)).status === 'processing', { timeout: 15_000 })
  hanging.child.kill('SIGKILL')
  await hanging.exited

  // The crontab runs recovery at the start of every minute: start the rescuer clear of one, so the
  // check below sees the task left alone rather than a recovery that happened to fall due.
  const intoMinute = Date.now() % 60_000
  if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 61_500 - intoMinute))
  const rescuer = startWorker({ IMAGE_PROVIDER: 'instant', TASK_STALL_MS: '1000' })
  try {
    await rescuer.ready()
    // Left alone, graphile-worker would keep the job locked for 4 hours.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(await task(body.taskId)).toMatchObject({ status: 'processing' })
    // The cron runs this every minute; enqueue it now rather than wait.
    await enqueueJob(db, 'recover_stalled_tasks', {})
    const done = await waitFor(
      async () => {
        const row = await task(body.taskId)
        return row.status === 'completed' ? row : null
      },
      { timeout: 20_000 },
    )
    expect(done).toMatchObject({ attempts: 2, progress: 100, provider: 'instant' })
    expect(await ledger(user.id)).toEqual({ credits: 8, sum: 8, types: ['earn', 'spend'] })
    // graphile-worker deletes the job just after the handler returns, a moment after the task row says completed.
    const jobs = async () =>
      (await sql`SELECT 1 FROM graphile_worker.jobs WHERE key = ${body.taskId}`.execute(db)).rows.length
    await waitFor(async () => (await jobs()) === 0, { timeout: 5_000 })
  } finally {
    await rescuer.stop()
  }
}, 90_000)
