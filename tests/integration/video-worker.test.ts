import { sql } from 'kysely'
import { getDb } from '#platform/db.server.ts'
import { getMediaBytes, getStorage } from '#platform/storage.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { startFakeVeo, type FakeVeo } from '#tests/fakes/veo.ts'
import { petPhoto, photoFile, withOwnDataDir, taskRow, creditsOf, refundsOf } from '#tests/helpers/generation.ts'
import { inspectMp4, submitVideo } from '#tests/helpers/video.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

withOwnDataDir()
const db = getDb()

const jobsFor = async (taskId: string) =>
  (
    await sql<{ count: number }>`SELECT count(*)::int AS count FROM graphile_worker.jobs WHERE key = ${taskId}`.execute(
      db,
    )
  ).rows[0].count

/** Waits until the task is finished, noting every progress value seen on the way. */
async function finished(taskId: string, timeout = 60_000) {
  const progress = new Set<number>()
  const row = await waitFor(
    async () => {
      const current = await taskRow(taskId)
      progress.add(current.progress)
      return current.status === 'completed' || current.status === 'failed' ? current : null
    },
    { timeout, interval: 25 },
  )
  return { row, progress: [...progress] }
}

async function resultBytes(key: string | null) {
  expect(key).not.toBeNull()
  return (await getMediaBytes(getStorage(), key!))!
}

// ffmpeg renders real MP4s: on a busy 2-core machine one takes up to half a minute.
describe('the worker process with the local provider (ffmpeg)', { timeout: 90_000 }, () => {
  let worker: ReturnType<typeof startWorker>
  beforeAll(async () => {
    worker = startWorker({ VIDEO_PROVIDER: 'local' })
    await worker.ready()
  })
  afterAll(() => worker.stop())

  test('image mode: a real H.264 MP4 of the photo at 16:9 720p, with progress on the way', async () => {
    const { user, token } = await createTestUser({ role: 'superadmin', credits: 50 })
    const { status, body } = await submitVideo(
      token,
      { mode: 'image', prompt: '', aspectRatio: '16:9', resolution: '720p', quality: 'fast' },
      photoFile(await petPhoto('#b07040', 400)),
    )
    expect(status).toBe(200)
    const { row, progress } = await finished(body.taskId)
    expect(row).toMatchObject({ status: 'completed', progress: 100, provider: 'local', error: null })
    expect(progress.some((percent) => percent > 0 && percent < 100)).toBe(true)
    expect(row.result_key).toBe(`tasks/${body.taskId}/result.mp4`)

    const video = inspectMp4(await resultBytes(row.result_key))
    expect(video).toMatchObject({ majorBrand: 'isom', codec: 'avc1', width: 1280, height: 720 })
    expect(video!.durationSeconds).toBeGreaterThanOrEqual(2)
    expect(video!.durationSeconds).toBeLessThanOrEqual(10)
    expect(await creditsOf(user.id)).toBe(40)
  })

  test('text mode: a rendered scene of the prompt, portrait 9:16 (1280p asked, 720p made)', async () => {
    const { token } = await createTestUser({ role: 'superadmin', credits: 50 })
    const { body } = await submitVideo(token, {
      mode: 'text',
      prompt: 'A black cat watching the stars at night',
      aspectRatio: '9:16',
      resolution: '1280p',
      quality: 'stable',
    })
    const { row } = await finished(body.taskId)
    expect(row.status).toBe('completed')
    const video = inspectMp4(await resultBytes(row.result_key))
    expect(video).toMatchObject({ codec: 'avc1', width: 720, height: 1280 })
  })
})

describe('the worker process with Veo (a local fake of the Gemini API)', () => {
  let fake: FakeVeo
  let worker: ReturnType<typeof startWorker>
  beforeAll(async () => {
    fake = await startFakeVeo()
    worker = startWorker({
      VIDEO_PROVIDER: 'veo',
      GEMINI_API_KEY: fake.apiKey,
      GEMINI_BASE_URL: fake.baseUrl,
      VEO_POLL_INTERVAL_MS: '100',
    })
    await worker.ready()
  })
  afterAll(async () => {
    await worker.stop()
    await fake.close()
  })
  beforeEach(() => fake.reset())

  test('image mode, Fast, 16:9 1280p: the fast model gets the photo and 1080p; the video is stored', async () => {
    const { user, token } = await createTestUser({ role: 'superadmin', credits: 50 })
    const { body } = await submitVideo(
      token,
      { mode: 'image', prompt: 'My dog wags its tail', aspectRatio: '16:9', resolution: '1280p', quality: 'fast' },
      photoFile(await petPhoto('#3070b0')),
    )
    const { row } = await finished(body.taskId)
    expect(row).toMatchObject({ status: 'completed', provider: 'veo' })
    expect(await resultBytes(row.result_key)).toEqual(fake.video)

    expect(fake.generations).toHaveLength(1)
    const [generation] = fake.generations
    expect(generation.model).toBe('veo-3.1-fast-generate-preview')
    expect(generation.body.parameters).toEqual({ aspectRatio: '16:9', resolution: '1080p' })
    expect(generation.body.instances[0].prompt).toBe('My dog wags its tail')
    expect(generation.body.instances[0].image?.mimeType).toBe('image/jpeg')
    expect(await creditsOf(user.id)).toBe(40)
  })

  test('text mode, Stable, 9:16: the standard model, 720p, no image', async () => {
    const { token } = await createTestUser({ role: 'superadmin', credits: 50 })
    const { body } = await submitVideo(token, {
      mode: 'text',
      prompt: 'A parrot dancing',
      aspectRatio: '9:16',
      resolution: '1280p',
      quality: 'stable',
    })
    expect((await finished(body.taskId)).row.status).toBe('completed')
    const [generation] = fake.generations
    expect(generation.model).toBe('veo-3.1-generate-preview')
    expect(generation.body.parameters).toEqual({ aspectRatio: '9:16', resolution: '720p' })
    expect(generation.body.instances[0].image).toBeUndefined()
  })

  test('an operation that ends in error fails the task with its reason and refunds it exactly once', async () => {
    fake.outcome = { type: 'error', code: 3, message: 'The input image could not be processed.' }
    const { user, token } = await createTestUser({ role: 'superadmin', credits: 50 })
    const { body } = await submitVideo(token, { mode: 'text', prompt: 'A hamster astronaut', quality: 'stable' })
    expect(await creditsOf(user.id)).toBe(30)

    const { row } = await finished(body.taskId)
    expect(row.status).toBe('failed')
    expect(row.error).toBe('Veo could not create the video: The input image could not be processed.')
    expect(row.result_key).toBeNull()
    // Settled: the job is gone and nothing refunds a second time.
    await waitFor(async () => (await jobsFor(body.taskId)) === 0)
    expect(await refundsOf(body.taskId)).toMatchObject([
      { amount: 20, description: 'Refunded: the provider failed to make this video' },
    ])
    expect(await creditsOf(user.id)).toBe(50)
    expect(fake.generations).toHaveLength(1)
  })
})
