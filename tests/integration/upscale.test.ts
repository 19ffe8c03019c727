import { readFile } from 'node:fs/promises'
import sharp from 'sharp'
import { action as upscaleAction } from '#app/routes/api.async-image.task.$id.upscale.ts'
import { loader as taskLoader } from '#app/routes/api.async-image.task.$id.ts'
import { action as historyPage } from '#app/routes/history.tsx'
import { action as configAction, loader as configLoader } from '#app/routes/api.system-config.ts'
import { getDb } from '#platform/db.server.ts'
import { getMediaBytes, getStorage } from '#platform/storage.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import {
  balanceAndLedgerSum,
  petPhoto,
  photoFile,
  submitGeneration,
  taskRow,
  withOwnDataDir,
} from '#tests/helpers/generation.ts'
import { lanczos, psnr, shrunk, upscalerFixturePath } from '#tests/helpers/image-quality.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

// "Make it bigger" through the real route and the real worker (decision 0036): the version to
// enlarge is a real photo (UpscalerJS's flower, halved to 64 px), so the model's output can be
// scored against the original; the default upscale price is 2 credits.

withOwnDataDir()
const db = getDb()
let worker: ReturnType<typeof startWorker>

beforeAll(async () => {
  worker = startWorker({ IMAGE_PROVIDER: 'instant' })
  await worker.ready()
})
afterAll(async () => {
  await worker.stop()
})

const upscale = async (id: string, token: string | undefined, json: unknown) => {
  const path = `/api/async-image/task/${id}/upscale`
  const response = await callRoute(upscaleAction, makeRequest(path, { method: 'POST', token, json }), { id })
  return { status: response.status, body: await response.json() }
}

const finished = (id: string) =>
  waitFor(
    async () => {
      const row = await taskRow(id)
      return row.status === 'completed' || row.status === 'failed' ? row : null
    },
    { timeout: 30_000 },
  )

const original = () => readFile(upscalerFixturePath())

/** A completed run of a new user whose version 0 is `picture` (stored as the version's file). */
async function completedRunOf(picture: Buffer, credits = 10) {
  const { user, token } = await createTestUser({ credits })
  const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
  expect(body).toMatchObject({ taskId: expect.any(String) })
  expect(await finished(body.taskId)).toMatchObject({ status: 'completed' })
  const version = await db
    .selectFrom('task_versions')
    .select('key')
    .where('task_id', '=', body.taskId)
    .executeTakeFirstOrThrow()
  // Stored losslessly under a key of its own, so the score measures the upscaler and not JPEG.
  const key = version.key.replace(/\.\w+$/, '-photo.png')
  await getStorage().put(key, picture, 'image/png')
  const { width = null, height = null } = await sharp(picture)
    .metadata()
    .catch(() => ({}) as { width?: number; height?: number })
  await db.updateTable('task_versions').set({ key, width, height }).where('key', '=', version.key).execute()
  await db.updateTable('generation_tasks').set({ result_key: key }).where('id', '=', body.taskId).execute()
  return { user, token, taskId: body.taskId as string }
}

const ledgerOf = (taskId: string) =>
  db.selectFrom('credit_transactions').select(['type', 'amount', 'description']).where('task_id', '=', taskId).execute()

test('×2 of a real photo: charged, linked to its parent, the exact size, and closer to the original than Lanczos', async () => {
  const photo = await original()
  const half = await shrunk(photo, 2)
  const { user, token, taskId } = await completedRunOf(half)
  const before = await balanceAndLedgerSum(user.id)

  const asked = await upscale(taskId, token, { index: 0, scale: 2 })
  expect(asked).toEqual({ status: 200, body: { taskId: expect.any(String) } })
  const done = await finished(asked.body.taskId)
  expect(done).toMatchObject({ status: 'completed', source: 'upscale', parent_task_id: taskId, credit_cost: 2 })
  expect(await ledgerOf(asked.body.taskId)).toEqual([{ type: 'spend', amount: -2, description: 'Make it bigger (×2)' }])
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: before.balance - 2, ledgerSum: before.balance - 2 })

  const result = (await getMediaBytes(getStorage(), done.result_key!))!
  expect(await sharp(result).metadata()).toMatchObject({ width: 128, height: 128 })
  const modelScore = await psnr(result, photo)
  const lanczosScore = await psnr(await lanczos(half, 2), photo)
  expect(modelScore).toBeGreaterThan(lanczosScore)
  expect(
    await db.selectFrom('task_versions').select('model').where('task_id', '=', asked.body.taskId).executeTakeFirst(),
  ).toEqual({ model: 'esrgan-slim' })

  // The task answer is like any other's, names its parent and carries no fallback label.
  const read = await callRoute(taskLoader, makeRequest(`/api/async-image/task/${asked.body.taskId}`, { token }), {
    id: asked.body.taskId,
  })
  const view = await read.json()
  expect(view).toMatchObject({ status: 'completed', source: 'upscale', parentTaskId: taskId })
  expect(view.images[0].enlargedWithoutModel).toBeUndefined()
  expect(view.images).toEqual([
    expect.objectContaining({ index: 0, width: 128, height: 128, provider: 'upscaler', model: 'esrgan-slim' }),
  ])
})

test('owner only, finished only, at most 8192 px, and bad input is a 400: nothing is charged', async () => {
  const { user, token, taskId } = await completedRunOf(await shrunk(await original(), 2))
  const other = await createTestUser({ credits: 10 })
  const before = await balanceAndLedgerSum(user.id)

  expect(await upscale(taskId, other.token, { index: 0, scale: 2 })).toEqual({
    status: 404,
    body: { message: 'Task not found' },
  })
  expect((await upscale('not-a-task', token, { index: 0, scale: 2 })).status).toBe(404)
  expect((await upscale(taskId, undefined, { index: 0, scale: 2 })).status).toBe(401)
  expect(await upscale(taskId, token, { index: 0, scale: 3 })).toMatchObject({
    status: 400,
    body: { message: expect.stringContaining('scale must be 2 or 4') },
  })
  expect(await upscale(taskId, token, { index: 1, scale: 2 })).toEqual({
    status: 400,
    body: { message: 'This portrait has no version 2' },
  })

  // A 4096 px version: ×2 reaches the limit exactly, ×4 would pass it.
  await db.updateTable('task_versions').set({ width: 4096, height: 3072 }).where('task_id', '=', taskId).execute()
  expect(await upscale(taskId, token, { index: 0, scale: 4 })).toEqual({
    status: 422,
    body: { message: '×4 would make it 16384×12288 px; the largest is 8192 px on the long side.' },
  })

  await db.updateTable('generation_tasks').set({ status: 'processing' }).where('id', '=', taskId).execute()
  expect(await upscale(taskId, token, { index: 0, scale: 2 })).toEqual({
    status: 409,
    body: { message: 'Only a finished portrait can be made bigger' },
  })
  expect(await balanceAndLedgerSum(user.id)).toEqual(before)
})

test('a picture the upscaler cannot read fails the task and refunds it, with the reason', async () => {
  const { user, token, taskId } = await completedRunOf(Buffer.from('not a picture at all'))
  await db.updateTable('task_versions').set({ width: 64, height: 64 }).where('task_id', '=', taskId).execute()
  const before = await balanceAndLedgerSum(user.id)
  const asked = await upscale(taskId, token, { index: 0, scale: 2 })
  expect(asked.status).toBe(200)
  expect(await finished(asked.body.taskId)).toMatchObject({ status: 'failed' })
  expect(await ledgerOf(asked.body.taskId)).toEqual([
    { type: 'spend', amount: -2, description: 'Make it bigger (×2)' },
    { type: 'earn', amount: 2, description: 'Refunded: this picture could not be enlarged' },
  ])
  expect(await balanceAndLedgerSum(user.id)).toEqual(before)
})

test('the form on /history works without JavaScript and opens the new task', async () => {
  const { token, taskId } = await completedRunOf(await shrunk(await original(), 2))
  const body = new URLSearchParams({ intent: 'upscale', taskId, index: '0', scale: '2' })
  const headers = { 'content-type': 'application/x-www-form-urlencoded' }
  const response = await callRoute(historyPage, makeRequest('/history', { method: 'POST', token, body, headers }))
  expect(response.status).toBe(302)
  const newTaskId = new URL(response.headers.get('location')!, 'http://x').searchParams.get('task')!
  expect(await finished(newTaskId)).toMatchObject({ status: 'completed', parent_task_id: taskId })
})

test('when the model cannot load, Lanczos enlarges it instead, logged and labelled', async () => {
  await worker.stop()
  worker = startWorker({ IMAGE_PROVIDER: 'instant', UPSCALE_MODEL_DIR: '/nonexistent/models' })
  await worker.ready()
  const { token, taskId } = await completedRunOf(await shrunk(await original(), 2))
  const asked = await upscale(taskId, token, { index: 0, scale: 2 })
  const done = await finished(asked.body.taskId)
  expect(done).toMatchObject({ status: 'completed' })
  expect(await sharp((await getMediaBytes(getStorage(), done.result_key!))!).metadata()).toMatchObject({ width: 128 })
  expect(worker.output.join('')).toContain('the model could not be loaded')
  const read = await callRoute(taskLoader, makeRequest(`/api/async-image/task/${asked.body.taskId}`, { token }), {
    id: asked.body.taskId,
  })
  expect((await read.json()).images).toEqual([
    expect.objectContaining({ width: 128, height: 128, model: 'lanczos', enlargedWithoutModel: true }),
  ])
})

test('upscaleCost is an optional setting: charged as set, kept by a PUT with only the spec four', async () => {
  const admin = await createTestUser({ role: 'superadmin' })
  const four = {
    newUserBonusCredits: 10,
    imageGenerationCreditCost: 2,
    videoGenerationCreditCost: 20,
    fastVideoGenerationCreditCost: 10,
  }
  const put = async (json: unknown) => {
    const request = makeRequest('/api/system-config', { method: 'PUT', token: admin.token, json })
    const response = await callRoute(configAction, request)
    return { status: response.status, body: await response.json() }
  }
  expect(await put({ ...four, upscaleCost: 5 })).toMatchObject({ status: 200 })
  expect(await put(four)).toEqual({
    status: 200,
    body: { message: 'System settings updated successfully', settings: four },
  })
  expect(await (await callRoute(configLoader, makeRequest('/api/system-config'))).json()).toMatchObject({
    upscaleCost: 5,
  })
  expect((await put({ ...four, upscaleCost: -1 })).body).toEqual({
    message: 'Make it bigger (upscale) cost cannot be negative',
  })
  const { token, taskId } = await completedRunOf(await shrunk(await original(), 2))
  const asked = await upscale(taskId, token, { index: 0, scale: 2 })
  expect(await ledgerOf(asked.body.taskId)).toEqual([{ type: 'spend', amount: -5, description: 'Make it bigger (×2)' }])
  await finished(asked.body.taskId)
  expect(await put({ ...four, upscaleCost: 2 })).toMatchObject({ status: 200 })
})
