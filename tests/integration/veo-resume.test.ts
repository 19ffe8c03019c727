import { recoverStalledTasks } from '#domain/generation/task-recovery.server.ts'
import { getDb } from '#platform/db.server.ts'
import { startFakeVeo, type FakeVeo } from '#tests/fakes/veo.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { creditsOf, refundsOf, taskRow, withOwnDataDir } from '#tests/helpers/generation.ts'
import { submitVideo } from '#tests/helpers/video.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

withOwnDataDir()
const db = getDb()
const STALL_MS = 1_500
let fake: FakeVeo

beforeAll(async () => {
  fake = await startFakeVeo()
})
afterAll(() => fake.close())
beforeEach(() => fake.reset())

const veoEnv = () => ({
  VIDEO_PROVIDER: 'veo',
  GEMINI_API_KEY: fake.apiKey,
  GEMINI_BASE_URL: fake.baseUrl,
  VEO_POLL_INTERVAL_MS: '200',
  TASK_HEARTBEAT_MS: '300',
  TASK_STALL_MS: String(STALL_MS),
})

const starts = () => fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith(':predictLongRunning'))

async function submitText(token: string, prompt: string) {
  const { status, body } = await submitVideo(token, { mode: 'text', prompt, quality: 'stable' })
  expect(status).toBe(200)
  return body.taskId as string
}

test('a worker killed with SIGKILL while Veo renders: after a restart the same operation finishes, paid once', async () => {
  fake.pollsUntilDone = 1_000_000
  const { user, token } = await createTestUser({ role: 'superadmin', credits: 50 })
  let worker = startWorker(veoEnv())
  try {
    await worker.ready()
    const taskId = await submitText(token, 'A corgi surfing at sunset')
    const charged = await creditsOf(user.id)

    // The operation's name is on the task, and its progress moves while the video renders.
    const rendering = await waitFor(
      async () => {
        const row = await taskRow(taskId)
        return row.provider_operation && (fake.generations[0]?.polls ?? 0) >= 3 && row.progress > 5 ? row : null
      },
      { timeout: 20_000 },
    )
    expect(rendering.provider_operation).toBe(fake.generations[0].operationName)
    expect(rendering.status).toBe('processing')

    worker.child.kill('SIGKILL')
    await worker.exited
    fake.pollsUntilDone = fake.generations[0].polls + 3
    worker = startWorker(veoEnv())
    await worker.ready()

    // What recover_stalled_tasks does every minute, in case the kill hit a running job.
    const done = await waitFor(
      async () => {
        await recoverStalledTasks(db, STALL_MS)
        const row = await taskRow(taskId)
        return row.status === 'completed' || row.status === 'failed' ? row : null
      },
      { timeout: 30_000, interval: 200 },
    )
    expect(done.status).toBe('completed')
    expect(done.result_key).toMatch(/\.mp4$/)
    expect(starts()).toHaveLength(1)
    expect(fake.generations).toHaveLength(1)
    expect(await creditsOf(user.id)).toBe(charged)
    expect(await refundsOf(taskId)).toHaveLength(0)
  } finally {
    await worker.stop()
  }
})

test('polling holds no slot: with one video slot, two operations render side by side', async () => {
  fake.pollsUntilDone = 1_000_000
  const worker = startWorker({ ...veoEnv(), VIDEO_CONCURRENCY: '1' })
  try {
    await worker.ready()
    const first = await createTestUser({ role: 'superadmin', credits: 50 })
    const second = await createTestUser({ role: 'superadmin', credits: 50 })
    const ids = [
      await submitText(first.token, 'A cat on a skateboard'),
      await submitText(second.token, 'A parrot singing'),
    ]

    // Both operations started and are being looked at, though neither is done.
    await waitFor(() => fake.generations.length === 2 && fake.generations.every((g) => g.polls >= 2), {
      timeout: 20_000,
    })
    for (const id of ids) expect((await taskRow(id)).status).toBe('processing')

    fake.pollsUntilDone = Math.max(...fake.generations.map((g) => g.polls)) + 2
    await waitFor(async () => (await Promise.all(ids.map(taskRow))).every((row) => row.status === 'completed'), {
      timeout: 30_000,
    })
    expect(starts()).toHaveLength(2)
  } finally {
    await worker.stop()
  }
})
