import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import { recoverStalledTasks } from '#domain/generation/task-recovery.server.ts'
import { getDb } from '#platform/db.server.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { startFakeS3 } from '#tests/fakes/s3.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { balanceAndLedgerSum, petPhoto, photoFile, refundsOf, taskRow } from '#tests/helpers/generation.ts'
import { startWebServer } from '#tests/helpers/web-server.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

/**
 * Once a provider's answer is stored, the provider is never asked again for it, whatever write
 * fails afterwards (decision 0028): a worker killed between the storage write and the database
 * write, and graphile-worker's own "job failed" write losing its connection. Media lives in a fake
 * S3, which can store an object and then lose the answer.
 */
const s3 = await startFakeS3()
Object.assign(process.env, {
  STORAGE_DRIVER: 's3',
  S3_BUCKET: 'media',
  S3_ENDPOINT: s3.endpoint,
  S3_FORCE_PATH_STYLE: 'true',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
})
const openai = await startOpenAiFake({ slowMs: 8_000 })
const web = await startWebServer()
const db = getDb()
const workerEnv = {
  IMAGE_PROVIDER: 'openai',
  OPENAI_BASE_URL: openai.baseUrl,
  OPENAI_API_KEY: openai.apiKey,
  IMAGE_CONCURRENCY: '2',
  TASK_HEARTBEAT_MS: '300',
}
/** Recovery's silence threshold here (TASK_STALL_MS is a minute by default). */
const STALL_MS = 1_000
const CREDITS = 10
const COST = 2

afterAll(async () => {
  await web.close()
  await openai.close()
  await s3.close()
})

async function submitPortrait(token: string) {
  const form = new FormData()
  form.append('images', photoFile(await petPhoto()))
  form.append('style', 'general')
  const response = await fetch(`${web.origin}/api/async-image/generate`, {
    method: 'POST',
    headers: { 'x-auth-token': token },
    body: form,
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { taskId: string }).taskId
}

/** Completed, with the answer stored under its own key; charged once, never refunded. */
async function expectDeliveredOnce(userId: string, taskIds: string[]) {
  for (const taskId of taskIds) {
    expect(await taskRow(taskId)).toMatchObject({ status: 'completed', result_key: `tasks/${taskId}/result.png` })
    expect(await refundsOf(taskId)).toHaveLength(0)
  }
  const { balance, ledgerSum } = await balanceAndLedgerSum(userId)
  expect(balance).toBe(ledgerSum)
  expect(balance).toBe(CREDITS - COST * taskIds.length)
}

const completed = (taskId: string) => async () => (await taskRow(taskId)).status === 'completed'

test('a worker SIGKILLed after the answer is stored and before the database has it: the next attempt uses it, the provider asked once', async () => {
  openai.requests.length = 0
  const { user, token } = await createTestUser({ credits: CREDITS })
  // S3 writes the result, and its answer never reaches the worker: the moment between the two writes.
  s3.holdPuts(/^tasks\/[^/]+\/result\./)
  const first = startWorker(workerEnv)
  let second: ReturnType<typeof startWorker> | undefined
  try {
    await first.ready()
    const taskId = await submitPortrait(token)
    await waitFor(() => s3.heldPuts() === 1, { timeout: 20_000 })
    expect(await first.stop('SIGKILL')).toBeNull()
    s3.holdPuts(null)
    expect(await taskRow(taskId)).toMatchObject({ status: 'processing', result_key: null })

    second = startWorker(workerEnv)
    await second.ready()
    // The dead worker's task goes quiet; recovery (every minute in the worker) hands it on.
    await sleep(STALL_MS * 1.5)
    expect(await recoverStalledTasks(db, STALL_MS)).toMatchObject({ requeued: [taskId] })
    await waitFor(completed(taskId), { timeout: 20_000, interval: 100 })
    expect(openai.requests).toHaveLength(1)
    await expectDeliveredOnce(user.id, [taskId])
  } finally {
    s3.holdPuts(null)
    await first.stop('SIGKILL')
    await second?.stop()
  }
}, 90_000)

test('graphile-worker\'s "job failed" write losing its connection: recovery hands on that job alone, so the worker\'s other running task is not asked of the provider again', async () => {
  openai.requests.length = 0
  const { user, token } = await createTestUser({ credits: CREDITS })
  // PostgreSQL ends the connection of the write that records a failed attempt (it never commits).
  await sql`CREATE SEQUENCE failed_job_writes_dropped`.execute(db)
  await sql`
    CREATE FUNCTION drop_failed_job_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM nextval('failed_job_writes_dropped');
      PERFORM pg_terminate_backend(pg_backend_pid());
      RETURN NEW;
    END $$
  `.execute(db)
  await sql`
    CREATE TRIGGER drop_failed_job_write BEFORE UPDATE ON graphile_worker._private_jobs FOR EACH ROW
    WHEN (OLD.locked_by IS NOT NULL AND NEW.locked_by IS NULL AND NEW.last_error IS DISTINCT FROM OLD.last_error)
    EXECUTE FUNCTION drop_failed_job_write()
  `.execute(db)
  const worker = startWorker(workerEnv)
  try {
    await worker.ready()
    // One task is drawing (8 s) …
    openai.setMode('slow')
    const drawing = await submitPortrait(token)
    await waitFor(() => openai.requests.length === 1, { timeout: 20_000 })
    // … when another, on the same worker, fails an attempt (a 500, retried), and the write of that failure is cut off.
    openai.setMode('server_error')
    const failing = await submitPortrait(token)
    await waitFor(
      async () =>
        (await sql<{ is_called: boolean }>`SELECT is_called FROM failed_job_writes_dropped`.execute(db)).rows[0]
          .is_called,
      { timeout: 20_000 },
    )
    openai.setMode('success')
    await sql`DROP TRIGGER drop_failed_job_write ON graphile_worker._private_jobs`.execute(db)
    expect(worker.child.exitCode).toBeNull()
    expect(await taskRow(failing)).toMatchObject({ status: 'queued' })

    // The failed job stays locked and its task silent: recovery hands it on while the other still draws.
    await sleep(STALL_MS * 1.5)
    expect(await recoverStalledTasks(db, STALL_MS)).toMatchObject({ requeued: [failing] })
    expect(await taskRow(drawing)).toMatchObject({ status: 'processing' })
    await waitFor(async () => (await completed(drawing)()) && (await completed(failing)()), {
      timeout: 30_000,
      interval: 100,
    })
    // The drawing task once; the failing one twice (the 500, then its answer).
    expect(openai.requests).toHaveLength(3)
    await expectDeliveredOnce(user.id, [drawing, failing])
    expect(worker.child.exitCode).toBeNull()
  } finally {
    openai.setMode('success')
    await sql`DROP TRIGGER IF EXISTS drop_failed_job_write ON graphile_worker._private_jobs`.execute(db)
    await worker.stop()
  }
}, 90_000)
