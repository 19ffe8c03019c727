import { imageTaskParamsSchema, promptInputFor } from '#domain/generation/image-task-params.ts'
import { buildImagePrompt } from '#domain/generation/prompt.ts'
import { getDb } from '#platform/db.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { balanceAndLedgerSum, photoFile, submitGeneration, tasksOf, withOwnDataDir } from '#tests/helpers/generation.ts'
import { blankPhoto, drawnPetPhoto } from '#tests/helpers/pet-photos.ts'

// With OpenAI as the image provider the web asks its vision model about every pet photo.
withOwnDataDir()
const openai = await startOpenAiFake({ slowMs: 3_000 })
Object.assign(process.env, {
  IMAGE_PROVIDER: 'openai',
  OPENAI_API_KEY: openai.apiKey,
  OPENAI_BASE_URL: openai.baseUrl,
  PHOTO_CHECK_TIMEOUT_MS: '1000',
})
afterAll(() => openai.close())
beforeEach(() => {
  openai.setMode('success')
  openai.setVisionAnswer({
    pet_found: true,
    pet_count: 1,
    species: 'dog',
    breed_guess: 'border collie',
    main_colours: ['black', 'white'],
    markings: ['white blaze', 'white chest'],
    problems: [],
  })
})

const skipped = async (reason: string) =>
  (await getMetrics().photoCheckVisionSkipped.get()).values.find((value) => value.labels.reason === reason)?.value ?? 0

test('the vision model sees the pet: its traits go on the task and into the prompt', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  const { status } = await submitGeneration(token, [photoFile(await drawnPetPhoto({ coat: '#202020' }))])
  expect(status).toBe(200)
  const [task] = await tasksOf(user.id)
  expect(task.params).toMatchObject({
    traits: {
      species: 'dog',
      breed: 'border collie',
      colours: ['black', 'white'],
      markings: ['white blaze', 'white chest'],
    },
  })
  const prompt = buildImagePrompt(promptInputFor(imageTaskParamsSchema.parse(task.params), 1))
  expect(prompt).toContain(
    'The pet is a dog (border collie) with black and white fur; markings: white blaze, white chest',
  )

  // What the model was sent: the photo downscaled to 512 px as a JPEG data URL, and the schema.
  const request = openai.visionRequests.at(-1)
  expect(request).toMatchObject({ model: 'gpt-6-luna', images: [{ mimeType: 'image/jpeg' }] })
  expect(request?.schema).toMatchObject({ required: expect.arrayContaining(['pet_found', 'species', 'problems']) })
})

test('"no pet" from the vision model: 422 with the message, nothing charged', async () => {
  openai.setVisionAnswer({
    pet_found: false,
    pet_count: 0,
    species: '',
    breed_guess: '',
    main_colours: [],
    markings: [],
    problems: [],
  })
  const { user, token } = await createTestUser({ credits: 10 })
  const { status, body } = await submitGeneration(token, [photoFile(await drawnPetPhoto({ coat: '#7a6a5a' }))])
  expect(status).toBe(422)
  expect(body).toEqual({
    message: "We couldn't find a pet in this photo: try one where your pet's face is visible",
    field: 'images',
  })
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 10, ledgerSum: 10 })
  expect(await tasksOf(user.id)).toEqual([])
})

test('the same photo is never paid for twice: the second check reads the cache', async () => {
  const { token } = await createTestUser({ credits: 10 })
  const photo = await drawnPetPhoto({ coat: '#a0522d' })
  const before = openai.visionRequests.length
  expect((await submitGeneration(token, [photoFile(photo)])).status).toBe(200)
  expect((await submitGeneration(token, [photoFile(photo)])).status).toBe(200)
  expect(openai.visionRequests.length).toBe(before + 1)
  expect(await getDb().selectFrom('photo_checks').select(['provider', 'model']).execute()).toContainEqual({
    provider: 'openai',
    model: 'gpt-6-luna',
  })
})

test('a photo the local checks refuse is never sent to the vision model', async () => {
  const { token } = await createTestUser({ credits: 10 })
  const before = openai.visionRequests.length
  expect((await submitGeneration(token, [photoFile(await blankPhoto())])).status).toBe(422)
  expect(openai.visionRequests.length).toBe(before)
})

test('vision 5xx or timeout: the submission goes on with the local checks, and the skip is counted', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  openai.setMode('server_error')
  const serverErrors = await skipped('server_error')
  expect((await submitGeneration(token, [photoFile(await drawnPetPhoto({ coat: '#5a4a3a' }))])).status).toBe(200)
  expect(await skipped('server_error')).toBe(serverErrors + 1)

  openai.setMode('slow')
  const timeouts = await skipped('timeout')
  const started = Date.now()
  expect((await submitGeneration(token, [photoFile(await drawnPetPhoto({ coat: '#6a5a4a' }))])).status).toBe(200)
  expect(Date.now() - started).toBeLessThan(2_500)
  expect(await skipped('timeout')).toBe(timeouts + 1)

  const tasks = await tasksOf(user.id)
  expect(tasks).toHaveLength(2)
  for (const task of tasks) expect(task.params).not.toHaveProperty('traits')
  // A failed call is not cached: the next upload of that photo asks again.
  openai.setMode('success')
  const asked = openai.visionRequests.length
  expect((await submitGeneration(token, [photoFile(await drawnPetPhoto({ coat: '#5a4a3a' }))])).status).toBe(200)
  expect(openai.visionRequests.length).toBe(asked + 1)
})
