import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { buffer as readStream } from 'node:stream/consumers'
import type { MediaStorage } from '#platform/storage.server.ts'
import {
  createLocalStorage,
  createS3Storage,
  createStorageFromEnv,
  getMediaBytes,
  isValidMediaKey,
  mediaKey,
  StorageUnavailableError,
} from '#platform/storage.server.ts'
import { parseEnv } from '#platform/env.server.ts'
import type { FakeS3 } from '#tests/fakes/s3.ts'
import { startFakeS3 } from '#tests/fakes/s3.ts'

const bytes = Buffer.from('not really a png, storage does not care')
const key = mediaKey('images', bytes, 'png', new Date('2026-11-05T00:00:00Z'))

describe('media keys', () => {
  test('mediaKey is content-hashed and partitioned by month', () => {
    expect(key).toMatch(/^images\/2026\/11\/[0-9a-f]{64}\.png$/)
    expect(mediaKey('images', Buffer.from(bytes), 'png', new Date('2026-11-30T00:00:00Z'))).toBe(key)
    expect(mediaKey('images', Buffer.from('other'), 'png', new Date('2026-11-05T00:00:00Z'))).not.toBe(key)
  })

  test.each([
    '../secret.png',
    'images/../../etc/passwd.png',
    '/etc/x.png',
    'images//a.png',
    'images\\a.png',
    'images/a.png/',
    'images/a..png',
    'images/.hidden.png',
    'Images/A.PNG',
    'images/a.html',
    'images/a.svg',
    'images/a',
    'images/a.png\0.jpg',
    'images/%2e%2e/a.png',
    '',
  ])('rejects %j', (bad) => {
    expect(isValidMediaKey(bad)).toBe(false)
  })

  test('accepts generated and simple keys', () => {
    expect(isValidMediaKey(key)).toBe(true)
    expect(isValidMediaKey('videos/2026/01/abc_def-1.mp4')).toBe(true)
    expect(isValidMediaKey('avatar.webp')).toBe(true)
  })

  test('mediaKey refuses an unsafe prefix or unknown extension', () => {
    expect(() => mediaKey('../up', bytes, 'png')).toThrow(/Invalid media key/)
    expect(() => mediaKey('images', bytes, 'exe')).toThrow(/Invalid media key/)
  })
})

function describeDriver(name: string, setup: () => Promise<{ storage: MediaStorage; teardown(): Promise<void> }>) {
  describe(name, () => {
    let storage: MediaStorage
    let teardown: () => Promise<void>
    beforeAll(async () => {
      ;({ storage, teardown } = await setup())
    })
    afterAll(() => teardown())

    test('put, stat, get, range and delete round trip', async () => {
      expect(await storage.get(key)).toBeNull()
      expect(await storage.stat(key)).toBeNull()

      await storage.put(key, bytes, 'image/png')
      expect(await storage.stat(key)).toEqual({ contentType: 'image/png', size: bytes.length })

      const object = await storage.get(key)
      expect(object).toMatchObject({ contentType: 'image/png', size: bytes.length })
      expect(await readStream(object!.body)).toEqual(bytes)
      expect(await getMediaBytes(storage, key)).toEqual(bytes)

      const part = await storage.get(key, { start: 4, end: 9 })
      expect(part?.size).toBe(6)
      expect((await readStream(part!.body)).toString()).toBe(bytes.subarray(4, 10).toString())

      await storage.delete(key)
      expect(await storage.get(key)).toBeNull()
      await storage.delete(key) // missing is fine
    })

    test('putFile stores a file from disk (a data export zip) as it is', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pawtrait-putfile-'))
      const file = path.join(dir, 'export.zip')
      const zip = Buffer.concat([Buffer.from('PK'), Buffer.alloc(300_000, 7)])
      await fs.writeFile(file, zip)
      const zipKey = 'exports/0a1b2c3d-0000-4000-8000-000000000000/pawtrait-data-0123456789abcdef.zip'
      await storage.putFile(zipKey, file, zip.length, 'application/zip')
      expect(await storage.stat(zipKey)).toEqual({ contentType: 'application/zip', size: zip.length })
      expect(await getMediaBytes(storage, zipKey)).toEqual(zip)
      await expect(storage.putFile(zipKey, file, zip.length, 'image/png')).rejects.toThrow(/must be stored as/)
      await storage.delete(zipKey)
      await fs.rm(dir, { recursive: true, force: true })
    })

    test('deleteMany removes every key and ignores missing ones', async () => {
      const keys = ['a', 'b', 'c'].map((text) => mediaKey('uploads', Buffer.from(text), 'jpg'))
      for (const k of keys) await storage.put(k, Buffer.from(k), 'image/jpeg')
      await storage.deleteMany([...keys, mediaKey('uploads', Buffer.from('never stored'), 'jpg')])
      for (const k of keys) expect(await storage.stat(k)).toBeNull()
      await storage.deleteMany([])
    })

    test('refuses unsafe keys and a content type that does not match the key', async () => {
      await expect(storage.put('../escape.png', bytes, 'image/png')).rejects.toThrow(/Invalid media key/)
      await expect(storage.get('images/../../x.png')).rejects.toThrow(/Invalid media key/)
      await expect(storage.deleteMany(['ok.png', '../x.png'])).rejects.toThrow(/Invalid media key/)
      await expect(storage.put(key, bytes, 'text/html')).rejects.toThrow(/must be stored as image\/png/)
    })
  })
}

describeDriver('local driver', async () => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pawtrait-storage-'))
  return {
    storage: createStorageFromEnv(parseEnv({ DATA_DIR: dataDir })),
    async teardown() {
      await fs.rm(dataDir, { recursive: true, force: true })
    },
  }
})

describeDriver('S3 driver', async () => {
  const s3: FakeS3 = await startFakeS3()
  return {
    // Through the real env schema, with the variable names Tigris sets on Fly.
    storage: createStorageFromEnv(
      parseEnv({
        DATA_DIR: 'tests/.tmp/data',
        STORAGE_DRIVER: 's3',
        BUCKET_NAME: 'media',
        AWS_ENDPOINT_URL_S3: s3.endpoint,
        S3_FORCE_PATH_STYLE: 'true',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
      }),
    ),
    teardown: () => s3.close(),
  }
})

test('local driver writes under <root>/<key> and leaves no temp files', async () => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'pawtrait-storage-'))
  try {
    await createLocalStorage(root).put(key, bytes, 'image/png')
    const dir = path.join(root, path.dirname(key))
    expect(await fs.readdir(dir)).toEqual([path.basename(key)])
    expect(await fs.readFile(path.join(root, key))).toEqual(bytes)
  } finally {
    await fs.rm(root, { recursive: true, force: true })
  }
})

test('the S3 driver stores the content type and signs its requests', async () => {
  const s3 = await startFakeS3()
  try {
    const credentials = { accessKeyId: 'test', secretAccessKey: 'test' }
    const storage = createS3Storage({
      bucket: 'media',
      endpoint: s3.endpoint,
      region: 'auto',
      forcePathStyle: true,
      credentials,
    })
    await storage.put(key, bytes, 'image/png')
    expect(s3.buckets.get('media')?.get(key)).toEqual({ body: bytes, contentType: 'image/png' })

    const unsigned = await fetch(`${s3.endpoint}/media/${key}`)
    expect(unsigned.status).toBe(403)
  } finally {
    await s3.close()
  }
})

test('the S3 driver tells storage that is away (5xx through its tries, a reset) from a request it refuses', async () => {
  const s3 = await startFakeS3()
  try {
    const storage = createS3Storage({
      bucket: 'media',
      endpoint: s3.endpoint,
      region: 'auto',
      forcePathStyle: true,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    })
    s3.failNextPuts(10)
    await expect(storage.put(key, bytes, 'image/png')).rejects.toBeInstanceOf(StorageUnavailableError)

    // A refusal is a mistake to fix, not an outage to wait out: it stays the S3 client's own error.
    s3.failNextPuts(1, {
      status: 501,
      code: 'NotImplemented',
      message: 'A header you provided implies functionality that is not implemented',
    })
    const refused = await storage.put(key, bytes, 'image/png').catch((error: unknown) => error)
    expect(refused).not.toBeInstanceOf(StorageUnavailableError)
    expect(refused).toMatchObject({ $metadata: { httpStatusCode: 501 } })

    s3.resetNextRequests(10)
    await expect(storage.stat(key)).rejects.toBeInstanceOf(StorageUnavailableError)
  } finally {
    await s3.close()
  }
})

test('the environment schema explains a missing or wrong storage setting', () => {
  expect(() => parseEnv({ DATA_DIR: '/tmp', STORAGE_DRIVER: 's3' })).toThrow(/S3_BUCKET/)
  expect(() => parseEnv({ DATA_DIR: '/tmp', STORAGE_DRIVER: 'ftp' })).toThrow(/STORAGE_DRIVER/)
})
