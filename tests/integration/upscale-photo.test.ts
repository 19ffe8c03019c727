import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import sharp from 'sharp'
import { vi } from 'vitest'
import { action as photoAction } from '#app/routes/api.async-image.task.$id.photo.ts'
import { action as upscaleAction } from '#app/routes/api.async-image.task.$id.upscale.ts'
import { action as createPetRoute } from '#app/routes/api.pets.ts'
import { loader as historyLoader } from '#app/routes/history.tsx'
import { completeTask } from '#domain/generation/task-states.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { petPhoto, photoFile, submitGeneration, taskRow, withOwnDataDir } from '#tests/helpers/generation.ts'

// Issue 38, item 2: an upscale's input is its parent's result, which "Delete my photo now" took
// for the user's photo and deleted; and "Save this pet" from an upscale read the portrait.
const media = withOwnDataDir()
const db = getDb()
const stored = (key: string) => fs.existsSync(path.join(media.dir, 'media', key))

/** A finished portrait of the user: submitted through the API, its result stored and completed. */
async function finishedPortrait(token: string) {
  const submitted = await submitGeneration(token, [photoFile(await petPhoto('#8a5a2a'))])
  expect(submitted.status).toBe(200)
  const taskId = submitted.body.taskId as string
  const resultKey = `tasks/${taskId}/result.png`
  await getStorage().put(resultKey, await petPhoto('#8a5a2a', 256), 'image/png')
  await db.updateTable('generation_tasks').set({ status: 'processing' }).where('id', '=', taskId).execute()
  expect(await completeTask(db, taskId, [{ index: 0, key: resultKey, width: 256, height: 341 }])).toBe(true)
  return { taskId, resultKey, photoKey: (await taskRow(taskId)).input_keys[0] }
}

/** "Make it bigger" of the portrait through its route, then finished as the worker would finish it. */
async function finishedUpscale(token: string, parentId: string) {
  const response = await callRoute(
    upscaleAction,
    makeRequest(`/api/async-image/task/${parentId}/upscale`, { token, json: { index: 0, scale: 2 } }),
    { id: parentId },
  )
  expect(response.status).toBe(200)
  const { taskId } = (await response.json()) as { taskId: string }
  const key = `tasks/${taskId}/result.png`
  await getStorage().put(key, await petPhoto('#8a5a2a', 512), 'image/png')
  await db.updateTable('generation_tasks').set({ status: 'processing' }).where('id', '=', taskId).execute()
  expect(await completeTask(db, taskId, [{ index: 0, key, width: 512, height: 682 }])).toBe(true)
  return taskId
}

const deletePhoto = async (token: string, id: string) => {
  const response = await callRoute(
    photoAction,
    makeRequest(`/api/async-image/task/${id}/photo`, { method: 'DELETE', token }),
    { id },
  )
  return { status: response.status, body: await response.json() }
}

/** "Save this pet" from the task: POST /api/pets with `fromTask`. */
async function saveThisPet(token: string, fromTask: string) {
  const form = new FormData()
  for (const [name, value] of Object.entries({ name: 'Toffee', species: 'cat', fromTask })) form.append(name, value)
  const response = await callRoute(createPetRoute, makeRequest('/api/pets', { method: 'POST', token, body: form }))
  return { status: response.status, body: await response.json() }
}

test('"Delete my photo now" on an upscale deletes nothing (deleted: 0) and /history offers it no button', async () => {
  const { token } = await createTestUser({ credits: 20 })
  const parent = await finishedPortrait(token)
  const upscaleId = await finishedUpscale(token, parent.taskId)
  expect((await taskRow(upscaleId)).input_keys).toEqual([parent.resultKey])

  const history = await (await callRoute(historyLoader, makeRequest('/history?type=image', { token }))).json()
  expect(history.withPhoto).toEqual([parent.taskId])

  expect(await deletePhoto(token, upscaleId)).toEqual({
    status: 200,
    body: { message: 'This portrait has no stored photo', deleted: 0 },
  })
  expect(stored(parent.resultKey)).toBe(true)
  expect(stored(parent.photoKey)).toBe(true)
  expect((await taskRow(upscaleId)).input_keys).toEqual([parent.resultKey])
  expect((await taskRow(parent.taskId)).input_keys).toEqual([parent.photoKey])

  // The parent's own photo still goes from the parent's row, and its result stays.
  expect(await deletePhoto(token, parent.taskId)).toEqual({
    status: 200,
    body: { message: 'Photo deleted', deleted: 1 },
  })
  expect(stored(parent.photoKey)).toBe(false)
  expect(stored(parent.resultKey)).toBe(true)
})

test('"Save this pet" from an upscale is a 404, never a pet made of the portrait', async () => {
  const { token } = await createTestUser({ credits: 20 })
  const parent = await finishedPortrait(token)
  const upscaleId = await finishedUpscale(token, parent.taskId)
  expect(await saveThisPet(token, upscaleId)).toEqual({
    status: 404,
    body: { message: 'Task not found' },
  })
  expect(await db.selectFrom('pets').select('id').execute()).toEqual([])
})

test('"Save this pet" refuses a stored photo over 10 MB (413) from its size, without reading it', async () => {
  const { token } = await createTestUser({ credits: 20 })
  const { taskId } = await submitGeneration(token, [photoFile(await petPhoto('#446688'))]).then((r) => r.body)
  // A PNG of noise: over 10 MB stored under the task's own prefix.
  const noise = await sharp(randomBytes(2048 * 2048 * 3), { raw: { width: 2048, height: 2048, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer()
  expect(noise.length).toBeGreaterThan(10 * 1024 * 1024)
  const bigKey = `tasks/${taskId}/2026/11/${'b'.repeat(64)}.png`
  await getStorage().put(bigKey, noise, 'image/png')
  await db
    .updateTable('generation_tasks')
    .set({ input_keys: [bigKey] })
    .where('id', '=', taskId)
    .execute()

  const reads = vi.spyOn(getStorage(), 'get')
  expect(await saveThisPet(token, taskId)).toEqual({
    status: 413,
    body: { message: 'File size should not exceed 10MB' },
  })
  expect(reads.mock.calls.map(([key]) => key)).not.toContain(bigKey)
  reads.mockRestore()
})
