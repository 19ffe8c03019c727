import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { mediaResponse, parseRange, safeDownloadName } from '#app/utils/media-response.server.ts'
import type { MediaStorage } from '#platform/storage.server.ts'
import { createLocalStorage, mediaKey } from '#platform/storage.server.ts'

const video = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256))
const key = mediaKey('videos', video, 'mp4')
let root: string
let storage: MediaStorage

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'pawtrait-media-'))
  storage = createLocalStorage(root)
  await storage.put(key, video, 'video/mp4')
})
afterAll(() => fs.rm(root, { recursive: true, force: true }))

const get = (headers: Record<string, string> = {}, query = '', mediaKeyToServe = key, method = 'GET') =>
  mediaResponse(
    new Request(`http://app.test/media/${mediaKeyToServe}${query}`, { method, headers }),
    storage,
    mediaKeyToServe,
  )

test("200 with type, length and immutable caching (nosniff is every answer's: server/security-headers.ts)", async () => {
  const response = await get()
  expect(response.status).toBe(200)
  expect(Object.fromEntries(response.headers)).toMatchObject({
    'content-type': 'video/mp4',
    'content-length': '1000',
    'cache-control': 'public, max-age=31536000, immutable',
    'accept-ranges': 'bytes',
  })
  expect(response.headers.get('etag')).toMatch(/^"[\w-]+"$/)
  expect(response.headers.get('content-disposition')).toBeNull()
  expect(Buffer.from(await response.arrayBuffer())).toEqual(video)
})

test('HEAD answers the headers without a body', async () => {
  const response = await get({}, '', key, 'HEAD')
  expect(response.status).toBe(200)
  expect(response.headers.get('content-length')).toBe('1000')
  expect(response.body).toBeNull()
})

test('304 when If-None-Match carries the ETag', async () => {
  const etag = (await get()).headers.get('etag')!
  for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
    const response = await get({ 'If-None-Match': ifNoneMatch })
    expect(response.status).toBe(304)
    expect(response.headers.get('etag')).toBe(etag)
    expect(response.body).toBeNull()
  }
  expect((await get({ 'If-None-Match': '"other"' })).status).toBe(200)
})

test('206 for a byte range', async () => {
  const response = await get({ Range: 'bytes=100-199' })
  expect(response.status).toBe(206)
  expect(response.headers.get('content-range')).toBe('bytes 100-199/1000')
  expect(response.headers.get('content-length')).toBe('100')
  expect(Buffer.from(await response.arrayBuffer())).toEqual(video.subarray(100, 200))

  const open = await get({ Range: 'bytes=990-' })
  expect(open.headers.get('content-range')).toBe('bytes 990-999/1000')
  expect(Buffer.from(await open.arrayBuffer())).toEqual(video.subarray(990))
})

test('416 when the range starts past the end', async () => {
  const response = await get({ Range: 'bytes=1000-1100' })
  expect(response.status).toBe(416)
  expect(response.headers.get('content-range')).toBe('bytes */1000')
})

test('a Range for another representation (If-Range mismatch) gets the whole object', async () => {
  const response = await get({ Range: 'bytes=0-9', 'If-Range': '"stale"' })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-length')).toBe('1000')
  await response.body?.cancel()
})

test('404 for a missing object or an invalid key', async () => {
  expect((await get({}, '', mediaKey('videos', Buffer.from('gone'), 'mp4'))).status).toBe(404)
  expect((await get({}, '', '../../etc/passwd.mp4')).status).toBe(404)
  expect((await get({}, '', 'videos/x.html')).status).toBe(404)
})

test('?download= gives an attachment with a sanitised name and the stored extension', async () => {
  const response = await get({}, `?download=${encodeURIComponent('../../evil"name\r\n.html')}`)
  expect(response.headers.get('content-disposition')).toBe('attachment; filename="evil-name.mp4"')
  await response.body?.cancel()
})

test('safeDownloadName', () => {
  expect(safeDownloadName('pet-video-42.mp4', key)).toBe('pet-video-42.mp4')
  expect(safeDownloadName('pet-portrait 1', 'a.png')).toBe('pet-portrait-1.png')
  expect(safeDownloadName('Чудо.jpg', 'a.jpg')).toBe('download.jpg')
  expect(safeDownloadName('', 'a.webp')).toBe('download.webp')
  expect(safeDownloadName('x'.repeat(500), 'a.png')).toHaveLength(104)
})

test('parseRange', () => {
  expect(parseRange('bytes=0-0', 10)).toEqual({ start: 0, end: 0 })
  expect(parseRange('bytes=5-100', 10)).toEqual({ start: 5, end: 9 })
  expect(parseRange('bytes=-3', 10)).toEqual({ start: 7, end: 9 })
  expect(parseRange('bytes=-30', 10)).toEqual({ start: 0, end: 9 })
  expect(parseRange('bytes=-0', 10)).toBe('unsatisfiable')
  expect(parseRange('bytes=10-', 10)).toBe('unsatisfiable')
  expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable')
  // Ignored, so the whole object is sent.
  expect(parseRange('bytes=5-2', 10)).toBeUndefined()
  expect(parseRange('bytes=0-1,4-5', 10)).toBeUndefined()
  expect(parseRange('items=0-1', 10)).toBeUndefined()
  expect(parseRange('bytes=-', 10)).toBeUndefined()
})
