import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { unzipSync } from 'fflate'
import { createLocalStorage, type MediaStorage } from '#platform/storage.server.ts'
import { zipChunks, zipStream } from '#platform/zip-stream.server.ts'

/** Local storage that counts the files opened, to see how far the zip reads ahead of its reader. */
async function countingStorage() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'pawtrait-zip-'))
  const storage = createLocalStorage(root)
  const opened: string[] = []
  const counting: MediaStorage = {
    ...storage,
    get: (key, range) => {
      opened.push(key)
      return storage.get(key, range)
    },
  }
  return { storage: counting, opened, root }
}

test('the zip is pulled: a reader that stops after the first bytes has opened one stored file, not all', async () => {
  const { storage, opened, root } = await countingStorage()
  const keys = Array.from({ length: 5 }, (_, index) => `tasks/zip-test/result-${index}.png`)
  for (const key of keys) await storage.put(key, Buffer.alloc(200_000, key.length), 'image/png')
  const chunks = zipChunks(storage, [
    { name: 'profile.json', bytes: Buffer.from('{}') },
    ...keys.map((key) => ({ name: `files/${key}`, key })),
  ])
  await chunks.next()
  await chunks.next()
  expect(opened.length).toBeLessThanOrEqual(1)
  await chunks.return(undefined)

  const entries = keys.map((key) => ({ name: key, key }))
  const whole = Buffer.from(await new Response(zipStream(storage, entries)).arrayBuffer())
  const files = unzipSync(new Uint8Array(whole))
  expect(Object.keys(files)).toEqual(keys)
  expect(files[keys[4]].length).toBe(200_000)
  await fs.rm(root, { recursive: true, force: true })
})
