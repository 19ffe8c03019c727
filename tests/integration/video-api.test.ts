import { sql } from 'kysely'
import { saveSystemConfig, defaultSystemConfig } from '#domain/credits/system-config.server.ts'
import type { Role } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'
import type { VideoProvider } from '#worker/providers/types.ts'
import { runGeneration } from '#worker/generation/run-generation.ts'
import { videoGeneration } from '#worker/jobs/generate-video.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import {
  balanceAndLedgerSum,
  petPhoto,
  photoFile,
  submitGeneration,
  tasksOf,
  withOwnDataDir,
} from '#tests/helpers/generation.ts'
import { jobHelpers } from '#tests/helpers/jobs.ts'
import { submitVideo } from '#tests/helpers/video.ts'
import { action as deleteVideo } from '#app/routes/api.async-video.delete.$taskId.ts'
import { loader as videoHistory } from '#app/routes/api.async-video.history.ts'
import { loader as videoTask } from '#app/routes/api.async-video.task.$id.ts'
import { loader as todayTasks } from '#app/routes/api.async-image.tasks.today.ts'

const media = withOwnDataDir()
const OWNER_EMAIL = 'owner@pawtrait.test'
process.env.OWNER_EMAIL = OWNER_EMAIL
// Unlike the image figure (2 with the local provider): a video's view must show the video lanes.
process.env.VIDEO_CONCURRENCY = '3'
const db = getDb()

const textVideo = { mode: 'text', prompt: 'A corgi surfing a wave at sunset', aspectRatio: '16:9', quality: 'stable' }

const superadmin = (userCredits = 100) => createTestUser({ role: 'superadmin', credits: userCredits })

/** A provider answering a few fixed bytes as an MP4, for tasks that only need to be finished. */
const cannedVideo: VideoProvider = {
  name: 'canned',
  async generate(request) {
    return { bytes: Buffer.from(`video of ${request.prompt}`), mimeType: 'video/mp4' }
  },
}

/** A video task submitted through the API and finished by the real generate_video job. */
async function finishedVideo(token: string, prompt = 'A cat on the moon') {
  const { body } = await submitVideo(token, { ...textVideo, prompt })
  await runGeneration({ taskId: body.taskId }, jobHelpers(1), videoGeneration(cannedVideo))
  return body.taskId as string
}

const readTask = (token: string | undefined, id: string) =>
  callRoute(videoTask, makeRequest(`/api/async-video/task/${id}`, { token }), { id })

describe('who may generate videos', () => {
  test.each([
    ['a normal user', 'user'],
    ['an admin', 'admin'],
  ] as const)('%s gets 403 and pays nothing', async (_name, role: Role) => {
    const { user, token } = await createTestUser({ role, credits: 100 })
    const answer = await submitVideo(token, textVideo)
    expect(answer).toEqual({
      status: 403,
      body: { message: 'Video generation is only available to super administrators.' },
    })
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 100, ledgerSum: 100 })
    expect(await tasksOf(user.id)).toEqual([])
  })

  test('a guest gets 401', async () => {
    const answer = await submitVideo(undefined, textVideo)
    expect(answer).toEqual({ status: 401, body: { message: 'Please log in first to generate videos' } })
  })

  test('a superadmin and the OWNER_EMAIL account (a plain user) may', async () => {
    const admin = await superadmin()
    expect((await submitVideo(admin.token, textVideo)).status).toBe(200)
    const owner = await createTestUser({ role: 'user', credits: 100, email: OWNER_EMAIL, emailVerified: true })
    expect((await submitVideo(owner.token, textVideo)).status).toBe(200)
    expect(await tasksOf(owner.user.id)).toMatchObject([{ kind: 'video', status: 'queued' }])
  })

  test('an account that registered the OWNER_EMAIL address without proving it gets nothing', async () => {
    await db.deleteFrom('users').where('email', '=', OWNER_EMAIL).execute()
    const claimant = await createTestUser({ role: 'user', credits: 100, email: OWNER_EMAIL })
    expect((await submitVideo(claimant.token, textVideo)).status).toBe(403)
  })
})

describe('POST /api/async-video/generate', () => {
  test('text mode: charges the configured cost, books the spend, queues the job, stores no file', async () => {
    const { user, token } = await superadmin()
    const before = media.taskFiles()
    const { status, body } = await submitVideo(token, { ...textVideo, resolution: '1280p', creditCost: '1' })
    expect(status).toBe(200)
    expect(body).toMatchObject({
      taskId: expect.any(String),
      status: 'queued',
      type: 'video',
      creditCost: 20,
      credits: 80,
    })

    const [task] = await tasksOf(user.id)
    expect(task).toMatchObject({ id: body.taskId, kind: 'video', status: 'queued', credit_cost: 20, input_keys: [] })
    expect(task.params).toEqual({
      mode: 'text',
      prompt: 'A corgi surfing a wave at sunset',
      aspectRatio: '16:9',
      resolution: '1280p',
      quality: 'stable',
    })
    const ledger = await db.selectFrom('credit_transactions').selectAll().where('task_id', '=', task.id).execute()
    expect(ledger).toMatchObject([{ type: 'spend', amount: -20, description: 'Video generation (Stable)' }])
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 80, ledgerSum: 80 })
    const { rows: jobs } = await sql<{ task_identifier: string; max_attempts: number }>`
      SELECT task_identifier, max_attempts FROM graphile_worker.jobs WHERE key = ${task.id}
    `.execute(db)
    expect(jobs).toEqual([{ task_identifier: 'generate_video', max_attempts: 4 }])
    expect(media.taskFiles()).toEqual(before)
  })

  test('the server charges its own cost per quality, whatever creditCost says, and follows config changes', async () => {
    const { user, token } = await superadmin()
    const fast = await submitVideo(token, { ...textVideo, quality: 'fast', creditCost: '999' })
    expect(fast.body).toMatchObject({ creditCost: 10, credits: 90 })
    const stable = await submitVideo(token, { ...textVideo, quality: 'stable', creditCost: '0' })
    expect(stable.body).toMatchObject({ creditCost: 20, credits: 70 })

    await saveSystemConfig(db, {
      ...defaultSystemConfig,
      videoGenerationCreditCost: 25,
      fastVideoGenerationCreditCost: 7,
    })
    try {
      expect((await submitVideo(token, { ...textVideo, quality: 'stable', creditCost: '20' })).body.creditCost).toBe(25)
      expect((await submitVideo(token, { ...textVideo, quality: 'fast', creditCost: '10' })).body.creditCost).toBe(7)
    } finally {
      await saveSystemConfig(db, defaultSystemConfig)
    }
    expect((await tasksOf(user.id)).map((task) => task.credit_cost)).toEqual([10, 20, 25, 7])
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 38, ledgerSum: 38 })
  })

  test('image mode stores the sniffed, re-encoded image under the task; 9:16 with 1280p is made 720p', async () => {
    const { user, token } = await superadmin()
    const { status, body } = await submitVideo(
      token,
      { mode: 'image', prompt: '', aspectRatio: '9:16', resolution: '1280p', quality: 'fast' },
      photoFile(await petPhoto('#884422'), 'dog.png', 'image/png'),
    )
    expect(status).toBe(200)
    const [task] = await tasksOf(user.id)
    expect(task.params).toMatchObject({ mode: 'image', prompt: '', aspectRatio: '9:16', resolution: '720p' })
    expect(task.input_keys).toHaveLength(1)
    expect(task.input_keys[0]).toMatch(new RegExp(`^tasks/${body.taskId}/\\d{4}/\\d{2}/[0-9a-f]{64}\\.jpg$`))
    expect(media.taskFiles()).toContain(task.input_keys[0])
  })

  test('text mode ignores an image sent along', async () => {
    const { user, token } = await superadmin()
    const before = media.taskFiles()
    expect((await submitVideo(token, textVideo, photoFile(await petPhoto('#123456')))).status).toBe(200)
    expect((await tasksOf(user.id))[0].input_keys).toEqual([])
    expect(media.taskFiles()).toEqual(before)
  })

  test.each([
    ['image mode without an image', 400, 'Please upload an image first for image-to-video generation', {}, undefined],
    [
      'text mode with a blank prompt',
      400,
      'Please enter a prompt for text-to-video generation',
      { mode: 'text', prompt: '   ' },
      undefined,
    ],
    ['an unknown aspect ratio', 400, 'Unknown aspect ratio: choose 16:9 or 9:16', { aspectRatio: '4:3' }, 'photo'],
    ['an unknown resolution', 400, 'Unknown resolution: choose 720p or 1280p', { resolution: '4k' }, 'photo'],
    ['an unknown quality', 400, 'Unknown quality: choose stable or fast', { quality: 'ultra' }, 'photo'],
    ['an unknown mode', 400, 'Unknown mode: choose image or text', { mode: 'audio' }, 'photo'],
    ['a text file named .jpg', 400, 'Unsupported file type', {}, 'text'],
    ['an 11 MB file', 413, 'File size should not exceed 10MB', {}, 'huge'],
    ['two images', 400, 'Only one file can be uploaded', {}, 'two'],
    ['a 100 KB prompt', 413, 'too long', { prompt: 'a'.repeat(100 * 1024) }, 'photo'],
  ] as const)(
    '%s: %i with a clear message, no charge, no file left',
    async (_name, status, message, fields, upload) => {
      const { user, token } = await superadmin()
      const photo = photoFile(await petPhoto('#654321'))
      const files = {
        photo,
        text: photoFile(Buffer.from('not an image at all '.repeat(40)), 'cat.jpg'),
        huge: photoFile(Buffer.alloc(11 * 1024 * 1024, 1), 'huge.jpg'),
        two: [photo, photo],
      }
      const before = media.taskFiles()
      const answer = await submitVideo(
        token,
        { mode: 'image', aspectRatio: '16:9', resolution: '720p', quality: 'stable', ...fields },
        upload && files[upload],
      )
      expect(answer.status).toBe(status)
      expect(answer.body.message).toContain(message)
      expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 100, ledgerSum: 100 })
      expect(await tasksOf(user.id)).toEqual([])
      expect(media.taskFiles()).toEqual(before)
    },
  )

  test('too few credits: 402 with needPurchase and the spec message; nothing charged, the image deleted again', async () => {
    const { user, token } = await superadmin(15)
    const before = media.taskFiles()
    const answer = await submitVideo(
      token,
      { mode: 'image', quality: 'stable', creditCost: '10' },
      photoFile(await petPhoto('#abcdef')),
    )
    expect(answer).toEqual({
      status: 402,
      body: { message: 'You need at least 20 credits to generate a video', needPurchase: true },
    })
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 15, ledgerSum: 15 })
    expect(await tasksOf(user.id)).toEqual([])
    expect(media.taskFiles()).toEqual(before)
  })
})

describe('GET /api/async-video/task/{id}', () => {
  test('answers the owner the task with its queue place, then the video once done', async () => {
    const { token } = await superadmin()
    const { body } = await submitVideo(token, textVideo)
    const queued = await readTask(token, body.taskId)
    expect(queued.status).toBe(200)
    const view = await queued.json()
    expect(view).toMatchObject({
      id: body.taskId,
      type: 'video',
      status: 'queued',
      progress: 0,
      queuePosition: expect.any(Number),
      totalInQueue: expect.any(Number),
      runningTasks: expect.any(Number),
      maxConcurrentTasks: 3,
      result: null,
      description: 'Generate pet video',
    })
    expect(view.queuePosition).toBeGreaterThanOrEqual(1)
    expect(view.queuePosition).toBeLessThanOrEqual(view.totalInQueue)
    // Today's Tasks lists it the same way.
    const today = await callRoute(todayTasks, makeRequest('/api/async-image/tasks/today', { token }))
    expect((await today.json()).tasks).toEqual([view])

    await runGeneration({ taskId: body.taskId }, jobHelpers(1), videoGeneration(cannedVideo))
    const done = await (await readTask(token, body.taskId)).json()
    expect(done).toMatchObject({ status: 'completed', progress: 100, queuePosition: 0 })
    expect(done.result.videoUrl).toBe(`/media/tasks/${body.taskId}/result.mp4`)
  })

  test("someone else's task, an image task, a malformed id and a guest are refused", async () => {
    const owner = await superadmin()
    const other = await superadmin()
    const { body } = await submitVideo(owner.token, textVideo)
    expect((await readTask(other.token, body.taskId)).status).toBe(404)
    expect((await readTask(owner.token, 'not-a-uuid')).status).toBe(404)
    expect((await readTask(undefined, body.taskId)).status).toBe(401)

    const image = await submitGeneration(owner.token, [photoFile(await petPhoto())])
    expect((await readTask(owner.token, image.body.taskId)).status).toBe(404)
  })
})

describe('GET /api/async-video/history', () => {
  test('pages through the user’s finished videos, newest first, without unfinished ones or other users’', async () => {
    const { token } = await superadmin()
    const first = await finishedVideo(token, 'first')
    const second = await finishedVideo(token, 'second')
    const third = await finishedVideo(token, 'third')
    await submitVideo(token, textVideo) // still queued
    await finishedVideo((await superadmin()).token)

    const page = async (query: string) =>
      (await callRoute(videoHistory, makeRequest(`/api/async-video/history${query}`, { token }))).json()
    const one = await page('?page=1&limit=2')
    expect(one.pagination).toEqual({ total: 3, page: 1, limit: 2, pages: 2 })
    expect(one.data.map((item: { taskId: string }) => item.taskId)).toEqual([third, second])
    expect(one.data[0]).toEqual({
      taskId: third,
      result: { videoUrl: expect.stringMatching(/^\/media\/tasks\/.+\.mp4$/) },
      createdAt: expect.any(String),
    })
    const two = await page('?page=2&limit=2')
    expect(two.data.map((item: { taskId: string }) => item.taskId)).toEqual([first])
    expect((await page('')).pagination).toMatchObject({ page: 1, limit: 10 })

    expect((await callRoute(videoHistory, makeRequest('/api/async-video/history'))).status).toBe(401)
  })
})

describe('DELETE /api/async-video/delete/{taskId}', () => {
  const remove = (token: string | undefined, taskId: string, method = 'DELETE') =>
    callRoute(deleteVideo, makeRequest(`/api/async-video/delete/${taskId}`, { method, token }), { taskId })

  test('only the owner deletes a finished video, with its files', async () => {
    const owner = await superadmin()
    const taskId = await finishedVideo(owner.token)
    const { result_key: resultKey } = await db
      .selectFrom('generation_tasks')
      .select('result_key')
      .where('id', '=', taskId)
      .executeTakeFirstOrThrow()
    expect(media.taskFiles()).toContain(resultKey)

    const stranger = await createTestUser({ role: 'superadmin' })
    const refused = await remove(stranger.token, taskId)
    expect(refused.status).toBe(404)
    expect(await refused.json()).toEqual({ message: 'Video not found' })
    expect(media.taskFiles()).toContain(resultKey)
    expect((await remove(undefined, taskId)).status).toBe(401)
    expect((await remove(owner.token, taskId, 'POST')).status).toBe(405)

    const deleted = await remove(owner.token, taskId)
    expect(deleted.status).toBe(200)
    expect(await deleted.json()).toEqual({ message: 'Video deleted' })
    expect(await db.selectFrom('generation_tasks').select('id').where('id', '=', taskId).execute()).toEqual([])
    expect(media.taskFiles()).not.toContain(resultKey)
    expect((await remove(owner.token, taskId)).status).toBe(404)
  })

  test('a video still being made is kept (409), with its uploaded image', async () => {
    const { user, token } = await superadmin()
    const { body } = await submitVideo(token, { mode: 'image' }, photoFile(await petPhoto('#aa5500')))
    const answer = await remove(token, body.taskId)
    expect(answer.status).toBe(409)
    const [task] = await tasksOf(user.id)
    expect(media.taskFiles()).toContain(task.input_keys[0])
  })

  test('an image task is not deleted through the video route', async () => {
    const { token } = await superadmin()
    const image = await submitGeneration(token, [photoFile(await petPhoto())])
    expect((await remove(token, image.body.taskId)).status).toBe(404)
    expect(
      await db.selectFrom('generation_tasks').select('id').where('id', '=', image.body.taskId).execute(),
    ).toHaveLength(1)
  })
})
