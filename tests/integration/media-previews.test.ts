import sharp from 'sharp'
import { loader as media } from '#app/routes/media.$.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage, mediaKey } from '#platform/storage.server.ts'
import { deleteFinishedTask } from '#domain/generation/user-tasks.server.ts'
import { previewKey } from '#domain/media/previews.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { noisePng } from '#tests/helpers/noise-pictures.ts'
import { withOwnDataDir } from '#tests/helpers/generation.ts'

withOwnDataDir()
const db = getDb()

async function storedPortrait() {
  const bytes = await noisePng({ width: 1024 })
  const key = mediaKey('tasks/results', bytes, 'png')
  await getStorage().put(key, bytes, 'image/png')
  return { key, bytes }
}

const get = (path: string) => callRoute(media, makeRequest(path), { '*': path.replace(/^\/media\//, '').split('?')[0] })

test('a picture is answered as a WebP preview at 480 or 720 px, made once and then read from storage', async () => {
  const { key, bytes } = await storedPortrait()
  for (const width of [480, 720] as const) {
    const answer = await get(`/media/${key}?w=${width}`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('image/webp')
    expect(answer.headers.get('cache-control')).toContain('immutable')
    const preview = Buffer.from(await answer.arrayBuffer())
    expect(await sharp(preview).metadata()).toMatchObject({ format: 'webp', width, height: width })
    expect(preview.byteLength).toBeLessThan(bytes.byteLength / 4)
  }
  // Made once: with the picture gone, the kept preview still answers.
  await getStorage().delete(key)
  expect((await get(`/media/${key}?w=480`)).status).toBe(200)
  expect((await get(`/media/${key}`)).status).toBe(404)
})

test('no preview of an unknown width, a missing picture or anything but a picture', async () => {
  const { key } = await storedPortrait()
  const video = mediaKey('tasks/results', Buffer.from('not really a video'), 'mp4')
  await getStorage().put(video, Buffer.from('not really a video'), 'video/mp4')
  const notAPicture = mediaKey('tasks/results', Buffer.from('not a png'), 'png')
  await getStorage().put(notAPicture, Buffer.from('not a png'), 'image/png')
  for (const path of [
    // Not a key at all, and a key too deep for a preview's two folders.
    '/media/../etc/passwd.png?w=480',
    '/media/a/b/c/d/e/f/g/h/picture.png?w=480',
    `/media/${key}?w=123`,
    `/media/${key}?w=`,
    `/media/${key.replace(/[0-9a-f]{8}\.png$/, '00000000.png')}?w=480`,
    `/media/${video}?w=480`,
    `/media/${notAPicture}?w=480`,
  ]) {
    const answer = await get(path)
    expect(answer.status, path).toBe(404)
  }
  expect(await getStorage().stat(previewKey(notAPicture, 480))).toBeNull()
})

test("deleting a finished task deletes its picture's previews with it", async () => {
  const { user } = await createTestUser()
  const { key } = await storedPortrait()
  const task = await db
    .insertInto('generation_tasks')
    .values({
      user_id: user.id,
      kind: 'image',
      status: 'completed',
      result_key: key,
      params: {},
      credit_cost: 2,
      provider: 'local',
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  expect((await get(`/media/${key}?w=720`)).status).toBe(200)
  expect(await getStorage().stat(previewKey(key, 720))).not.toBeNull()
  await deleteFinishedTask(db, user.id, task.id, 'image')
  expect(await getStorage().stat(previewKey(key, 720))).toBeNull()
  expect(await getStorage().stat(key)).toBeNull()
})
