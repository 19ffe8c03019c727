import fs from 'node:fs'
import path from 'node:path'
import { unzipSync } from 'fflate'
import sharp from 'sharp'
import { action as avatarAction } from '#app/routes/api.auth.update-avatar.ts'
import { action as exportAction } from '#app/routes/api.auth.export.ts'
import { action as shareAction } from '#app/routes/api.async-image.task.$id.share.ts'
import { action as createPetRoute } from '#app/routes/api.pets.ts'
import { loader as exportDownload } from '#app/routes/exports.$id.ts'
import { loader as exportStatus } from '#app/routes/api.auth.export.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage, mediaKey } from '#platform/storage.server.ts'
import { buildDataExport } from '#worker/jobs/build-data-export.ts'
import { imageGeneration } from '#worker/jobs/generate-image.ts'
import { runGeneration } from '#worker/generation/run-generation.ts'
import { createOpenAiImageProvider } from '#worker/providers/image/openai.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { petPhoto, photoFile, submitGeneration, taskRow, withOwnDataDir } from '#tests/helpers/generation.ts'
import { jobHelpers } from '#tests/helpers/jobs.ts'
import { submitProof } from '#tests/helpers/payments.ts'

// Issue 38, item 8: a photo's metadata (where it was taken, what its owner wrote in it) never
// reaches storage or a provider, whichever way it comes in. Every upload path gets a JPEG carrying
// EXIF GPS and an ImageDescription, and every stored byte and every byte sent is searched for them.
const media = withOwnDataDir()
const openai = await startOpenAiFake()
Object.assign(process.env, {
  IMAGE_PROVIDER: 'openai',
  OPENAI_API_KEY: openai.apiKey,
  OPENAI_BASE_URL: openai.baseUrl,
  PUBLIC_URL: 'https://pawtrait.example',
  PAYPAL_ME_URL: 'https://paypal.me/pawtrait-test',
})
afterAll(() => openai.close())
beforeEach(() =>
  openai.setVisionAnswer({
    pet_found: true,
    pet_count: 1,
    species: 'dog',
    breed_guess: 'beagle',
    main_colours: ['tan'],
    markings: [],
    problems: [],
  }),
)
const db = getDb()

const DESCRIPTION = 'Biscuit in our back garden, 12 Secret Lane'
const DATUM = 'WGS-84-HOME'
/** The GPS seconds as EXIF stores them (rationals, little-endian as libvips writes them). */
const rational = (numerator: number, denominator: number) => {
  const bytes = Buffer.alloc(8)
  bytes.writeUInt32LE(numerator, 0)
  bytes.writeUInt32LE(denominator, 4)
  return bytes
}
const needles = {
  description: Buffer.from(DESCRIPTION),
  'GPS datum': Buffer.from(DATUM),
  'GPS latitude': rational(4321, 100),
  'GPS longitude': rational(3947, 100),
}

/** A pet photo (it passes the photo check) carrying EXIF GPS and an ImageDescription. */
async function photoWithMetadata(colour: string, width = 1024) {
  return sharp(await petPhoto(colour, width))
    .jpeg({ quality: 90 })
    .withExif({
      IFD0: { ImageDescription: DESCRIPTION },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '51/1 30/1 4321/100',
        GPSLongitudeRef: 'W',
        GPSLongitude: '0/1 7/1 3947/100',
        GPSMapDatum: DATUM,
      },
    })
    .toBuffer()
}

/** Which of the needles `bytes` holds (by name). */
const leaks = (bytes: Uint8Array) =>
  Object.entries(needles)
    .filter(([, needle]) => Buffer.from(bytes).includes(needle))
    .map(([name]) => name)

/** Every stored object, with its bytes. */
function storedFiles() {
  const root = path.join(media.dir, 'media')
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .map((entry) => path.join(root, entry))
    .filter((file) => fs.statSync(file).isFile())
    .map((file) => ({ key: path.relative(root, file).split(path.sep).join('/'), bytes: fs.readFileSync(file) }))
}

test('the test photo does carry the metadata searched for', async () => {
  expect(leaks(await photoWithMetadata('#a06030'))).toEqual(Object.keys(needles))
})

test('no upload path stores or sends a photo’s GPS or description', async () => {
  const { user, token } = await createTestUser({ credits: 50 })

  // The generator: a pet photo and a reference; the photo check's vision call and moderation see them.
  const submitted = await submitGeneration(
    token,
    [photoFile(await photoWithMetadata('#a06030')), photoFile(await photoWithMetadata('#3060a0'), 'reference.jpg')],
    { mode: 'customize', prompt: 'A regal portrait' },
  )
  expect(submitted.status).toBe(200)
  const taskId = submitted.body.taskId as string
  const provider = imageGeneration(createOpenAiImageProvider({ apiKey: openai.apiKey, baseUrl: openai.baseUrl }))
  await runGeneration({ taskId }, jobHelpers(1), provider)
  expect((await taskRow(taskId)).status).toBe('completed')

  // A saved pet's photo.
  const petForm = new FormData()
  for (const [name, value] of Object.entries({ name: 'Biscuit', species: 'dog' })) petForm.append(name, value)
  petForm.append('photos', photoFile(await photoWithMetadata('#806040')))
  const pet = await callRoute(createPetRoute, makeRequest('/api/pets', { method: 'POST', token, body: petForm }))
  expect(pet.status).toBe(201)

  // The avatar.
  const avatar = await callRoute(
    avatarAction,
    makeRequest('/api/auth/update-avatar', {
      token,
      json: { profilePicture: `data:image/jpeg;base64,${(await photoWithMetadata('#604080')).toString('base64')}` },
    }),
  )
  expect(avatar.status).toBe(200)

  // A payment screenshot.
  const proof = await submitProof(token, {
    creditAmount: '100',
    paymentMethod: 'paypal_me',
    transactionId: `TX-${user.id.slice(0, 8)}`,
    screenshot: photoFile(await photoWithMetadata('#408060'), 'receipt.jpg'),
  })
  expect(proof).toMatchObject({ status: 201 })

  // A share page of a version that carries the metadata itself (a provider could answer one).
  const versionBytes = await photoWithMetadata('#205080')
  const versionKey = mediaKey(`tasks/${taskId}`, versionBytes, 'jpg')
  await getStorage().put(versionKey, versionBytes, 'image/jpeg')
  await db.insertInto('task_versions').values({ task_id: taskId, version_index: 3, key: versionKey }).execute()
  const shared = await callRoute(
    shareAction,
    makeRequest(`/api/async-image/task/${taskId}/share`, { token, json: { index: 3 } }),
    { id: taskId },
  )
  expect(shared.status).toBe(201)
  const page = await db.selectFrom('share_pages').selectAll().where('task_id', '=', taskId).executeTakeFirstOrThrow()

  // Storage: every file but the planted version is clean; the share page's copies are among them.
  const files = storedFiles().filter((file) => file.key !== versionKey)
  expect(files.map((file) => file.key)).toEqual(
    expect.arrayContaining([
      expect.stringMatching(new RegExp(`^tasks/${taskId}/`)),
      expect.stringMatching(/^pets\//),
      expect.stringMatching(/^avatars\//),
      expect.stringMatching(/^payments\//),
      page.image_key,
      page.card_key,
    ]),
  )
  expect(files.filter((file) => file.key.startsWith(`tasks/${taskId}/`) && file.key.endsWith('.jpg'))).toHaveLength(2)
  expect(files.map((file) => ({ key: file.key, leaks: leaks(file.bytes) }))).toEqual(
    files.map((file) => ({ key: file.key, leaks: [] })),
  )

  // What the providers were sent: the photo check's preview, moderation's images, the image edit's photos.
  const sent = [
    ...openai.visionRequests.flatMap((request) => request.images.map((image) => image.bytes)),
    ...openai.moderation.requests.flatMap((request) => request.images.map((image) => image.bytes)),
    ...openai.requests.flatMap((request) => request.images.map((image) => image.bytes)),
  ]
  expect(openai.visionRequests.length).toBeGreaterThan(0)
  expect(openai.moderation.requests.some((request) => request.images.length > 0)).toBe(true)
  expect(openai.requests[0].images).toHaveLength(2)
  expect(sent.map(leaks)).toEqual(sent.map(() => []))

  // The data export, without the planted version (a provider's own file, exported as stored).
  await db.deleteFrom('task_versions').where('key', '=', versionKey).execute()
  await getStorage().delete(versionKey)
  const started = await callRoute(exportAction, makeRequest('/api/auth/export', { method: 'POST', token }))
  expect(started.status).toBe(202)
  const { export: pending } = await started.json()
  await buildDataExport({ exportId: pending.id }, jobHelpers(1))
  const { export: ready } = await (await callRoute(exportStatus, makeRequest('/api/auth/export', { token }))).json()
  const [pathname] = (ready.url as string).split('?')
  const download = await callRoute(exportDownload, makeRequest(ready.url), { id: pathname.split('/').pop() ?? '' })
  expect(download.status).toBe(200)
  const zipBytes = new Uint8Array(await download.arrayBuffer())
  const zip = unzipSync(zipBytes)
  expect(Object.keys(zip).filter((name) => name.startsWith('files/')).length).toBeGreaterThanOrEqual(6)
  expect(Object.entries(zip).filter(([, bytes]) => leaks(bytes).length > 0)).toEqual([])
})
