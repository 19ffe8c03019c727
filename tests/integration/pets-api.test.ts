/**
 * Saved pets (issue 31, item 6) through the real /api routes, database and local storage: only the
 * owner sees or changes a pet, uploads are refused as the generator refuses them, deleting a pet or
 * its owner removes its photos from storage, and a generation with `petId` sends every one of the
 * pet's photos to the provider (the OpenAI and Gemini fakes record what they receive).
 */
import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { getDb } from '#platform/db.server.ts'
import { loader as listRoute, action as createRoute } from '#app/routes/api.pets.ts'
import { action as petRoute } from '#app/routes/api.pets.$id.ts'
import { action as deleteUserRoute } from '#app/routes/api.userManagement.users.$id.ts'
import { createGeminiImageProvider } from '#worker/providers/image/gemini.ts'
import { createOpenAiImageProvider } from '#worker/providers/image/openai.ts'
import { imageGeneration } from '#worker/jobs/generate-image.ts'
import { runGeneration } from '#worker/generation/run-generation.ts'
import { startGeminiFake, type GeminiFake } from '#tests/fakes/gemini.ts'
import { startOpenAiFake, type OpenAiFake } from '#tests/fakes/openai.ts'
import { s3StorageEnv, startFakeS3 } from '#tests/fakes/s3.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import {
  creditsOf,
  petPhoto,
  photoFile,
  submitGeneration,
  taskRow,
  tasksOf,
  withOwnDataDir,
} from '#tests/helpers/generation.ts'
import { jobHelpers } from '#tests/helpers/jobs.ts'
import { startWebProcess } from '#tests/helpers/web-process.ts'

const media = withOwnDataDir()

let openai: OpenAiFake
let gemini: GeminiFake
beforeAll(async () => {
  ;[openai, gemini] = await Promise.all([startOpenAiFake(), startGeminiFake()])
})
afterAll(async () => {
  await Promise.all([openai.close(), gemini.close()])
})

interface PetJson {
  id: string
  name: string
  species: string
  breed: string
  colours: string
  markings: string
  photos: { id: string; url: string; width: number; height: number }[]
}

const petFields = {
  name: 'Biscuit',
  species: 'dog',
  breed: 'Beagle',
  colours: 'tan and white',
  markings: 'white blaze',
}

function petForm(fields: Record<string, string>, photos: File[] = [], removePhotos: string[] = []) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  for (const photo of photos) form.append('photos', photo)
  for (const id of removePhotos) form.append('removePhotos', id)
  return form
}

async function answer(response: Response) {
  return { status: response.status, body: await response.json() }
}

const listPets = async (token?: string) => answer(await callRoute(listRoute, makeRequest('/api/pets', { token })))

const createPet = async (token: string | undefined, form: FormData) =>
  answer(await callRoute(createRoute, makeRequest('/api/pets', { method: 'POST', token, body: form })))

const updatePet = async (token: string, id: string, form: FormData) =>
  answer(await callRoute(petRoute, makeRequest(`/api/pets/${id}`, { method: 'PUT', token, body: form }), { id }))

const deletePet = async (token: string, id: string) =>
  answer(await callRoute(petRoute, makeRequest(`/api/pets/${id}`, { method: 'DELETE', token }), { id }))

/** Distinct photos (different colours, so different stored keys). */
const photos = async (...colours: string[]) =>
  Promise.all(colours.map(async (colour, index) => photoFile(await petPhoto(colour), `pet-${index}.jpg`)))

async function savedPet(token: string, colours = ['#aa5522', '#553311']) {
  const { status, body } = await createPet(token, petForm(petFields, await photos(...colours)))
  expect(status).toBe(201)
  return body.pet as PetJson
}

/** The stored file of a photo URL (/media/<key>). */
const fileOf = (url: string) => path.join(media.dir, 'media', url.slice('/media/'.length))
const stored = (url: string) => fs.existsSync(fileOf(url))

describe('saving, reading, changing and deleting a pet', () => {
  test('the owner saves a pet with photos, lists it, changes it and deletes it with its files', async () => {
    const { token } = await createTestUser()
    const pet = await savedPet(token)
    expect(pet).toMatchObject(petFields)
    expect(pet.photos).toHaveLength(2)
    for (const photo of pet.photos) {
      expect(photo.url).toMatch(new RegExp(`^/media/pets/${pet.id}/.+\\.jpg$`))
      expect(stored(photo.url)).toBe(true)
    }
    expect((await listPets(token)).body.pets).toEqual([pet])

    // Replace the fields, remove the first photo and add a new one.
    const [first, second] = pet.photos
    const changed = await updatePet(
      token,
      pet.id,
      petForm({ name: 'Biscuit II', species: 'dog', markings: 'one black ear' }, await photos('#224488'), [first.id]),
    )
    expect(changed.status).toBe(200)
    expect(changed.body.pet).toMatchObject({ name: 'Biscuit II', breed: '', colours: '', markings: 'one black ear' })
    expect(changed.body.pet.photos.map((photo: { id: string }) => photo.id)[0]).toBe(second.id)
    expect(changed.body.pet.photos).toHaveLength(2)
    expect(stored(first.url)).toBe(false)
    expect(stored(second.url)).toBe(true)

    const photoUrls: string[] = changed.body.pet.photos.map((photo: { url: string }) => photo.url)
    expect(await deletePet(token, pet.id)).toEqual({ status: 200, body: { message: 'Pet deleted' } })
    expect((await listPets(token)).body.pets).toEqual([])
    for (const url of photoUrls) expect(stored(url)).toBe(false)
  })

  test("another user's pet is unknown: not listed, and 404 to change or delete; no token is 401", async () => {
    const owner = await createTestUser()
    const other = await createTestUser()
    const pet = await savedPet(owner.token)

    expect((await listPets(other.token)).body.pets).toEqual([])
    const refusedChange = await updatePet(other.token, pet.id, petForm({ name: 'Mine now', species: 'cat' }))
    expect(refusedChange).toEqual({ status: 404, body: { message: 'Pet not found' } })
    expect(await deletePet(other.token, pet.id)).toEqual({ status: 404, body: { message: 'Pet not found' } })
    expect(await deletePet(other.token, 'not-a-uuid')).toEqual({ status: 404, body: { message: 'Pet not found' } })
    expect((await listPets(owner.token)).body.pets[0]).toMatchObject({ name: 'Biscuit' })
    for (const photo of pet.photos) expect(stored(photo.url)).toBe(true)

    expect((await listPets()).status).toBe(401)
    expect((await createPet(undefined, petForm(petFields, await photos('#101010')))).status).toBe(401)
  })
})

test('"Save this pet": a pet made from one of the user\'s own generations keeps its photo; another user\'s task is a 404', async () => {
  const { token } = await createTestUser({ credits: 10 })
  const other = await createTestUser({ credits: 10 })
  const submitted = await submitGeneration(token, [photoFile(await petPhoto('#996633'))])
  const task = await taskRow(submitted.body.taskId)
  const fromTask = (token: string) => createPet(token, petForm({ name: 'Toffee', species: 'cat', fromTask: task.id }))

  const saved = await fromTask(token)
  expect(saved.status).toBe(201)
  expect(saved.body.pet).toMatchObject({ name: 'Toffee', species: 'cat' })
  expect(saved.body.pet.photos).toHaveLength(1)
  const taskPhoto = await sharp(fs.readFileSync(path.join(media.dir, 'media', task.input_keys[0]))).stats()
  const petPhotoStats = await sharp(fs.readFileSync(fileOf(saved.body.pet.photos[0].url))).stats()
  expect(petPhotoStats.dominant).toEqual(taskPhoto.dominant)

  expect(await fromTask(other.token)).toEqual({ status: 404, body: { message: 'Task not found' } })
  expect((await listPets(other.token)).body.pets).toEqual([])
})

describe('validation', () => {
  test.each([
    ['no name', { ...petFields, name: '' }, 1, { message: 'Please give your pet a name', field: 'name' }],
    [
      'no species',
      { ...petFields, species: '  ' },
      1,
      { message: 'Please say what kind of animal your pet is (dog, cat …)', field: 'species' },
    ],
    [
      'a long name',
      { ...petFields, name: 'x'.repeat(51) },
      1,
      { message: 'The name must be at most 50 characters', field: 'name' },
    ],
    [
      'long markings',
      { ...petFields, markings: 'x'.repeat(201) },
      1,
      { message: 'The markings must be at most 200 characters', field: 'markings' },
    ],
    ['no photo', petFields, 0, { message: 'Please add at least one photo of your pet' }],
    ['four photos', petFields, 4, { message: 'At most 3 files can be uploaded' }],
  ])(
    '%s is refused with 400 and a clear message (and the field it is about), storing nothing',
    async (_case, fields, count, body) => {
      const { token } = await createTestUser()
      const files = await photos(...['#111111', '#222222', '#333333', '#444444'].slice(0, count))
      expect(await createPet(token, petForm(fields, files))).toEqual({ status: 400, body })
      expect((await listPets(token)).body.pets).toEqual([])
    },
  )

  test('a file that is not an image is refused like a generator upload; a pet keeps at least one photo', async () => {
    const { token } = await createTestUser()
    const notAnImage = new File([new TextEncoder().encode('just text')], 'pet.jpg', { type: 'image/jpeg' })
    expect(await createPet(token, petForm(petFields, [notAnImage]))).toEqual({
      status: 400,
      body: { message: 'Unsupported file type: please upload a JPEG, PNG, WebP or GIF image' },
    })

    // Every pet photo goes through the photo check: a blank picture is refused (422) and nothing is stored.
    const blank = await sharp({ create: { width: 1024, height: 768, channels: 3, background: '#808080' } })
      .jpeg()
      .toBuffer()
    const refused = await createPet(token, petForm(petFields, [photoFile(blank)]))
    expect(refused.status).toBe(422)
    expect(refused.body.message).toEqual(expect.any(String))
    expect((await listPets(token)).body.pets).toEqual([])

    const pet = await savedPet(token, ['#777777'])
    const removeAll = await updatePet(token, pet.id, petForm(petFields, [], [pet.photos[0].id]))
    expect(removeAll).toEqual({ status: 400, body: { message: 'Please add at least one photo of your pet' } })
    const tooMany = await updatePet(token, pet.id, petForm(petFields, await photos('#888888', '#999999', '#aaaaaa')))
    expect(tooMany).toEqual({ status: 400, body: { message: 'A pet has at most 3 photos: remove one first' } })
    expect(stored(pet.photos[0].url)).toBe(true)
    // Nothing of the refused change was left behind: the pet's folder holds its one photo.
    expect(fs.readdirSync(path.dirname(fileOf(pet.photos[0].url)))).toHaveLength(1)
  })
})

test("deleting a user removes their pets' photos from storage, and nobody else's", async () => {
  const { user, token } = await createTestUser()
  const other = await createTestUser()
  const pet = await savedPet(token, ['#123123'])
  const othersPet = await savedPet(other.token, ['#123123'])
  const { token: superadminToken } = await createTestUser({ role: 'superadmin' })
  const response = await callRoute(
    deleteUserRoute,
    makeRequest(`/api/userManagement/users/${user.id}`, { method: 'DELETE', token: superadminToken }),
    { id: user.id },
  )
  expect(response.status).toBe(200)
  expect(stored(pet.photos[0].url)).toBe(false)
  expect(await getDb().selectFrom('pets').select('id').where('id', '=', pet.id).execute()).toEqual([])
  expect(stored(othersPet.photos[0].url)).toBe(true)
})

describe('generating with a saved pet', () => {
  test("the pet's photos become the task's images and reach OpenAI and Gemini, with its traits in the prompt", async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const pet = await savedPet(token, ['#aa5522', '#553311', '#884422'])
    const petBytes = pet.photos.map((photo) => fs.readFileSync(fileOf(photo.url)))

    const viaOpenAi = imageGeneration(createOpenAiImageProvider({ apiKey: openai.apiKey, baseUrl: openai.baseUrl }))
    const viaGemini = imageGeneration(createGeminiImageProvider({ apiKey: gemini.apiKey, baseUrl: gemini.baseUrl }))
    for (const provider of [viaOpenAi, viaGemini]) {
      const submitted = await submitGeneration(token, [], { petId: pet.id })
      expect(submitted.status).toBe(200)
      const task = await taskRow(submitted.body.taskId)
      expect(task.input_keys).toHaveLength(3)
      expect(task.input_keys.every((key) => key.startsWith(`tasks/${task.id}/`))).toBe(true)
      expect(task.params).toMatchObject({
        petId: pet.id,
        petPhotoCount: 3,
        traits: { species: 'dog', breed: 'Beagle', colours: ['tan and white'], markings: ['white blaze'] },
      })
      await runGeneration({ taskId: task.id }, jobHelpers(1), provider)
      expect((await taskRow(task.id)).status).toBe('completed')
    }

    const [openAiRequest] = openai.requests
    expect(openAiRequest.images.map((image) => image.field)).toEqual(['image[]', 'image[]', 'image[]'])
    expect(openAiRequest.images.map((image) => image.bytes)).toEqual(petBytes)
    expect(openAiRequest.prompt).toContain('The first 3 images all show this same pet')
    expect(openAiRequest.prompt).toContain(
      'The pet is a dog (Beagle) with tan and white fur; markings: white blaze; keep these exactly.',
    )
    const [geminiRequest] = gemini.requests
    expect(geminiRequest.images.map((image) => image.bytes)).toEqual(petBytes)
    expect(geminiRequest.prompt).toContain('The pet is a dog (Beagle)')
    expect(await creditsOf(user.id)).toBeLessThan(10)
    // The task's copies are its own: deleting the pet leaves them.
    expect((await deletePet(token, pet.id)).status).toBe(200)
    const [task] = await tasksOf(user.id)
    expect(media.taskFiles()).toEqual(expect.arrayContaining(task.input_keys))
  })

  test('in Customize mode the uploads are reference images after the pet photos', async () => {
    const { token } = await createTestUser({ credits: 10 })
    const pet = await savedPet(token, ['#aa5522'])
    const submitted = await submitGeneration(token, [photoFile(await petPhoto('#00ff00'), 'reference.jpg')], {
      petId: pet.id,
      mode: 'customize',
      prompt: 'In a meadow',
    })
    expect(submitted.status).toBe(200)
    const task = await taskRow(submitted.body.taskId)
    expect(task.input_keys).toHaveLength(2)
    // The same bytes, so the same content-hashed file name: the pet's photo first, then the reference.
    expect(path.basename(task.input_keys[0])).toBe(path.basename(pet.photos[0].url))
    expect(path.basename(task.input_keys[1])).not.toBe(path.basename(pet.photos[0].url))
  })

  test("another user's pet, an unknown pet, or a photo beside a pet outside Customize mode is refused and charges nothing", async () => {
    const owner = await createTestUser({ credits: 10 })
    const { user, token } = await createTestUser({ credits: 10 })
    const pet = await savedPet(owner.token, ['#aa5522'])

    expect(await submitGeneration(token, [], { petId: pet.id })).toEqual({
      status: 404,
      body: { message: 'Pet not found' },
    })
    expect(await submitGeneration(token, [], { petId: 'nope' })).toEqual({
      status: 400,
      body: { message: 'Unknown saved pet', field: 'petId' },
    })
    const own = await savedPet(token, ['#aa5522'])
    expect(await submitGeneration(token, [photoFile(await petPhoto())], { petId: own.id })).toEqual({
      status: 400,
      body: {
        message: 'You chose a saved pet: leave the photo empty, or choose "Upload a new photo"',
        field: 'images',
      },
    })
    expect(await submitGeneration(token, [])).toEqual({
      status: 400,
      body: { message: 'Please upload a pet photo first', field: 'images' },
    })
    expect(await creditsOf(user.id)).toBe(10)
    expect(await tasksOf(user.id)).toEqual([])
  })
})

test('with S3 storage, through the web process: deleting a pet, and its owner, deletes the photos from the bucket', async () => {
  const s3 = await startFakeS3()
  const web = await startWebProcess(s3StorageEnv(s3))
  const bucketKeys = () => [...(s3.buckets.get('media')?.keys() ?? [])]
  const keyOf = (photo: { url: string }) => photo.url.slice('/media/'.length)
  try {
    const { user, token } = await createTestUser()
    const { token: superadmin } = await createTestUser({ role: 'superadmin' })
    const save = async (colour: string) => {
      const response = await fetch(`${web.origin}/api/pets`, {
        method: 'POST',
        headers: { 'x-auth-token': token },
        body: petForm(petFields, await photos(colour)),
      })
      expect(response.status).toBe(201)
      return ((await response.json()) as { pet: PetJson }).pet
    }
    const first = await save('#335577')
    const second = await save('#775533')
    expect(bucketKeys()).toEqual(expect.arrayContaining([...first.photos, ...second.photos].map(keyOf)))
    const patch = await fetch(`${web.origin}/api/pets/${first.id}`, {
      method: 'PATCH',
      headers: { 'x-auth-token': token },
    })
    expect(patch.status).toBe(405)
    expect(patch.headers.get('allow')).toBe('PUT, DELETE')

    const deleted = await fetch(`${web.origin}/api/pets/${first.id}`, {
      method: 'DELETE',
      headers: { 'x-auth-token': token },
    })
    expect(deleted.status).toBe(200)
    expect(bucketKeys()).not.toContain(keyOf(first.photos[0]))
    expect(bucketKeys()).toContain(keyOf(second.photos[0]))

    const userDeleted = await fetch(`${web.origin}/api/userManagement/users/${user.id}`, {
      method: 'DELETE',
      headers: { 'x-auth-token': superadmin },
    })
    expect(userDeleted.status).toBe(200)
    expect(bucketKeys()).not.toContain(keyOf(second.photos[0]))
  } finally {
    await web.stop()
    await s3.close()
  }
})
