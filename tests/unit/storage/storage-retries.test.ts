import { createS3Storage } from '#platform/storage.server.ts'
import { startFakeS3 } from '#tests/fakes/s3.ts'
import { withStorageRetries } from '#worker/storage-retries.ts'

const key = 'tasks/0b6b3d5e-1f7c-4a51-9d44-2f3f4c1d8e01/result.png'
const bytes = Buffer.from('a provider result')

async function withS3(run: (s3: Awaited<ReturnType<typeof startFakeS3>>) => Promise<void>) {
  const s3 = await startFakeS3()
  try {
    await run(s3)
  } finally {
    await s3.close()
  }
}

function storageOn(endpoint: string) {
  const credentials = { accessKeyId: 'test', secretAccessKey: 'test' }
  return createS3Storage({ bucket: 'media', endpoint, region: 'auto', forcePathStyle: true, credentials })
}

test('an S3 that answers 503 for a while is tried again with backoff until the object is stored', async () => {
  await withS3(async (s3) => {
    const storage = storageOn(s3.endpoint)
    // More failures than the S3 client's own three tries of one call.
    s3.failNextPuts(4)
    await withStorageRetries('storing', () => storage.put(key, bytes, 'image/png'), [10, 10, 10])
    expect(s3.buckets.get('media')?.get(key)?.body).toEqual(bytes)
    expect(s3.putRequests()).toBe(5)
  })
})

test('storage failing past the last retry fails the call with its error', async () => {
  await withS3(async (s3) => {
    const storage = storageOn(s3.endpoint)
    s3.failNextPuts(1000)
    await expect(withStorageRetries('storing', () => storage.put(key, bytes, 'image/png'), [10])).rejects.toThrow(
      /reduce your request rate/,
    )
    expect(s3.putRequests()).toBe(6)
    expect(s3.buckets.get('media')?.get(key)).toBeUndefined()
  })
})
