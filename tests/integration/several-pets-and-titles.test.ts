/**
 * Issue 41 through the real /api routes, database, storage and worker code: several pets in one
 * portrait reach OpenAI and Gemini (the fakes record every image part and the prompt) in order and
 * named; the price adds `extraPetCost` per extra pet; bad input is refused before any charge; a
 * title is set on the finished versions inside the print-safe area, kept beside the plain version,
 * changed and removed for free; a fix of a two-pet portrait says which pet is off.
 */
// Set before any module reads the environment (the first test): the chain's limit is OpenAI's 16.
process.env.IMAGE_PROVIDERS = 'openai'

import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { getDb } from '#platform/db.server.ts'
import { action as createPetRoute } from '#app/routes/api.pets.ts'
import { loader as taskRoute } from '#app/routes/api.async-image.task.$id.ts'
import { action as titleRoute } from '#app/routes/api.async-image.task.$id.title.ts'
import { action as fixRoute } from '#app/routes/api.async-image.task.$id.fix.ts'
import { action as rerollRoute } from '#app/routes/api.async-image.task.$id.reroll.ts'
import { loader as titlesRoute } from '#app/routes/api.titles.ts'
import { loader as previewRoute } from '#app/routes/api.titles.preview.ts'
import { correctionsFor, imageTaskParamsSchema } from '#domain/generation/image-task-params.ts'
import { printSafeArea } from '#domain/media/print-readiness.ts'
import { createGeminiImageProvider } from '#worker/providers/image/gemini.ts'
import { createLocalImageProvider } from '#worker/providers/image/local.ts'
import { createOpenAiImageProvider } from '#worker/providers/image/openai.ts'
import { imageGeneration } from '#worker/jobs/generate-image.ts'
import { runGeneration } from '#worker/generation/run-generation.ts'
import { startGeminiFake, type GeminiFake } from '#tests/fakes/gemini.ts'
import { startOpenAiFake, type OpenAiFake } from '#tests/fakes/openai.ts'
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

const media = withOwnDataDir()

let openai: OpenAiFake
let gemini: GeminiFake
beforeAll(async () => {
  ;[openai, gemini] = await Promise.all([startOpenAiFake(), startGeminiFake()])
  // The photo check and moderation ask the fake.
  process.env.OPENAI_API_KEY = openai.apiKey
  process.env.OPENAI_BASE_URL = openai.baseUrl
})
afterAll(async () => {
  await Promise.all([openai.close(), gemini.close()])
})

interface PetJson {
  id: string
  photos: { url: string }[]
}

async function savedPet(token: string, name: string, species: string, colours: string[]) {
  const form = new FormData()
  for (const [field, value] of Object.entries({ name, species, breed: '', colours: 'tan', markings: '' })) {
    form.append(field, value)
  }
  for (const [index, colour] of colours.entries())
    form.append('photos', photoFile(await petPhoto(colour), `p${index}.jpg`))
  const response = await callRoute(createPetRoute, makeRequest('/api/pets', { method: 'POST', token, body: form }))
  expect(response.status).toBe(201)
  return ((await response.json()) as { pet: PetJson }).pet
}

const fileOf = (url: string) => path.join(media.dir, 'media', url.slice('/media/'.length))

async function taskJson(id: string, token: string) {
  const response = await callRoute(taskRoute, makeRequest(`/api/async-image/task/${id}`, { token }), { id })
  return (await response.json()) as {
    images: { index: number; url: string; plainUrl?: string; title?: unknown }[]
    result: { imageUrl: string }
  }
}

async function putTitle(id: string, token: string, json: unknown) {
  const request = makeRequest(`/api/async-image/task/${id}/title`, { method: 'PUT', token, json })
  const response = await callRoute(titleRoute, request, { id })
  return { status: response.status, body: await response.json() }
}

const local = imageGeneration(createLocalImageProvider())

describe('several pets in one portrait', () => {
  test('two saved pets reach OpenAI and Gemini as image parts in order, each named in the prompt, at the extra-pet price', async () => {
    const { user, token } = await createTestUser({ credits: 20 })
    const biscuit = await savedPet(token, 'Biscuit', 'dog', ['#aa5522', '#553311'])
    const pepper = await savedPet(token, 'Pepper', 'cat', ['#222222'])
    const photoBytes = [...biscuit.photos, ...pepper.photos].map((photo) => fs.readFileSync(fileOf(photo.url)))

    const viaOpenAi = imageGeneration(createOpenAiImageProvider({ apiKey: openai.apiKey, baseUrl: openai.baseUrl }))
    const viaGemini = imageGeneration(createGeminiImageProvider({ apiKey: gemini.apiKey, baseUrl: gemini.baseUrl }))
    for (const provider of [viaOpenAi, viaGemini]) {
      const submitted = await submitGeneration(token, [], { petIds: [biscuit.id, pepper.id] })
      expect(submitted.status).toBe(200)
      const task = await taskRow(submitted.body.taskId)
      expect(task.input_keys).toHaveLength(3)
      expect(task.params).toMatchObject({
        pets: [
          { name: 'Biscuit', petId: biscuit.id, photoCount: 2 },
          { name: 'Pepper', petId: pepper.id, photoCount: 1 },
        ],
      })
      await runGeneration({ taskId: task.id }, jobHelpers(1), provider)
      expect((await taskRow(task.id)).status).toBe('completed')
    }
    // Each run: the image cost (2) plus one extra pet (extraPetCost, default 1).
    expect(await creditsOf(user.id)).toBe(20 - 3 - 3)

    const [openAiRequest] = openai.requests
    expect(openAiRequest.images.map((image) => image.field)).toEqual(['image[]', 'image[]', 'image[]'])
    expect(openAiRequest.images.map((image) => image.bytes)).toEqual(photoBytes)
    const [geminiRequest] = gemini.requests
    expect(geminiRequest.images.map((image) => image.bytes)).toEqual(photoBytes)
    for (const prompt of [openAiRequest.prompt ?? '', geminiRequest.prompt]) {
      expect(prompt).toContain('The portrait shows these 2 pets together, each keeping its own likeness')
      expect(prompt).toMatch(/the first, Biscuit, a dog with tan fur \(images 1 to 2\); the second, Pepper, a cat/)
      expect(prompt).toContain('(image 3)')
      expect(prompt.indexOf('Biscuit')).toBeLessThan(prompt.indexOf('Pepper'))
      expect(prompt).toContain('All 2 pets together as the subjects')
    }
  })

  test('a photo for each pet is checked and stored in order; the offline renderer draws them all in one scene', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const colours = ['#ff0000', '#0000ff']
    const submitted = await submitGeneration(token, [], {
      petPhotos: await Promise.all(colours.map(async (colour) => photoFile(await petPhoto(colour)))),
    })
    expect(submitted.status).toBe(200)
    const task = await taskRow(submitted.body.taskId)
    expect(task.input_keys).toHaveLength(2)
    expect(task.params).toMatchObject({ pets: [{ photoCount: 1 }, { photoCount: 1 }] })
    await runGeneration({ taskId: task.id }, jobHelpers(1), local)
    const done = await taskRow(task.id)
    expect(done.status).toBe('completed')
    expect(await creditsOf(user.id)).toBe(10 - 3)
    // The frame's left half holds the first pet and its right half the second: swapped, so do their colours.
    const inputs = task.input_keys.map((key) => ({
      bytes: fs.readFileSync(fileOf(`/media/${key}`)),
      mimeType: 'image/jpeg' as const,
    }))
    const swapped = await createLocalImageProvider().generate(
      { images: [...inputs].reverse(), petPhotoCounts: [1, 1], prompt: '', style: 'general', guided: null },
      { signal: new AbortController().signal, onProgress: () => {} },
    )
    const redness = async (image: Buffer, side: 'left' | 'right') => {
      const region = { left: side === 'left' ? 280 : 610, top: 420, width: 130, height: 130 }
      const { channels } = await sharp(await sharp(image).extract(region).toBuffer()).stats()
      return channels[0].mean - channels[2].mean
    }
    const made = fs.readFileSync(fileOf(`/media/${done.result_key}`))
    expect(await redness(made, 'left')).toBeGreaterThan(await redness(swapped.images[0].bytes, 'left'))
    expect(await redness(made, 'right')).toBeLessThan(await redness(swapped.images[0].bytes, 'right'))
  })

  test('a fifth pet, another user’s pet, too many images for the provider, a long or undrawable title: refused, nothing charged', async () => {
    const owner = await createTestUser({ credits: 10 })
    const { user, token } = await createTestUser({ credits: 50 })
    const others = await savedPet(owner.token, 'Rex', 'dog', ['#aa5522'])
    const pets = []
    for (const name of ['A', 'B', 'C', 'D', 'E']) {
      pets.push(await savedPet(token, name, 'dog', ['#aa5522', '#553311', '#884422']))
    }
    const ids = pets.map((pet) => pet.id)

    expect(await submitGeneration(token, [], { petIds: ids })).toEqual({
      status: 400,
      body: { message: 'A portrait has at most 4 pets', field: 'petIds' },
    })
    const photos = await Promise.all(['#1', '#2', '#3', '#4', '#5'].map(async () => photoFile(await petPhoto())))
    expect((await submitGeneration(token, [], { petPhotos: photos })).status).toBe(400)
    expect(await submitGeneration(token, [], { petIds: [ids[0], others.id] })).toEqual({
      status: 404,
      body: { message: 'Pet not found' },
    })
    // Four pets of three photos and five references: 17 images, one more than OpenAI takes.
    const references = await Promise.all(
      ['#010101', '#020202', '#030303', '#040404', '#050505'].map(async (c) => photoFile(await petPhoto(c))),
    )
    const tooMany = await submitGeneration(token, references, {
      petIds: ids.slice(0, 4),
      mode: 'customize',
      prompt: 'At the beach',
    })
    expect(tooMany.status).toBe(400)
    expect(tooMany.body.message).toContain('make 17 images; the image service takes at most 16')
    expect(await submitGeneration(token, [], { petIds: [ids[0]], title: 'x'.repeat(25) })).toEqual({
      status: 400,
      body: { message: 'The title can be at most 24 characters', field: 'title' },
    })
    const undrawable = await submitGeneration(token, [], {
      petIds: [ids[0]],
      title: 'Biscuit 🐶 漢',
      titleFont: 'cinzel',
    })
    expect(undrawable.status).toBe(422)
    expect(undrawable.body).toMatchObject({ field: 'title', characters: ['🐶', '漢'] })
    expect(undrawable.body.message).toContain('Cinzel cannot draw these characters: "🐶", "漢"')

    expect(await creditsOf(user.id)).toBe(50)
    expect(await tasksOf(user.id)).toEqual([])
  })

  test('the fix of a two-pet portrait names the pet that is off; a re-roll costs the extra pet again', async () => {
    const { user, token } = await createTestUser({ credits: 20 })
    const biscuit = await savedPet(token, 'Biscuit', 'dog', ['#aa5522'])
    const pepper = await savedPet(token, 'Pepper', 'cat', ['#222222'])
    const submitted = await submitGeneration(token, [], { petIds: [biscuit.id, pepper.id] })
    await runGeneration({ taskId: submitted.body.taskId }, jobHelpers(1), local)
    const id = submitted.body.taskId as string

    const post = async (route: typeof fixRoute, action: string, json?: unknown) => {
      const request = makeRequest(`/api/async-image/task/${id}/${action}`, { method: 'POST', token, json })
      const response = await callRoute(route, request, { id })
      return { status: response.status, body: await response.json() }
    }
    expect(await post(fixRoute, 'fix', { reasons: ['ears'], pet: 2 })).toEqual({
      status: 400,
      body: { message: 'This portrait has 2 pets: say which one is off', field: 'pet' },
    })
    const fixed = await post(fixRoute, 'fix', { reasons: ['ears'], pet: 1 })
    expect(fixed.status).toBe(200)
    const params = imageTaskParamsSchema.parse((await taskRow(fixed.body.taskId)).params)
    expect(correctionsFor(params)).toContain('in an earlier portrait the second pet, Pepper did not look like itself')
    const before = await creditsOf(user.id)
    const rerolled = await post(rerollRoute, 'reroll')
    expect(rerolled.status).toBe(200)
    expect(before - (await creditsOf(user.id))).toBe(3)
  })
})

describe('a title on the portrait', () => {
  test('lists the styles and fonts, and previews a title as a PNG; an undrawable one is a 422', async () => {
    const { token } = await createTestUser()
    const titles = await (await callRoute(titlesRoute, makeRequest('/api/titles'))).json()
    expect(titles).toEqual({
      maxLength: 24,
      styles: [
        { id: 'band', label: expect.any(String) },
        { id: 'arch', label: expect.any(String) },
        { id: 'plaque', label: expect.any(String) },
      ],
      fonts: [
        { id: 'playfair-display', name: 'Playfair Display' },
        { id: 'great-vibes', name: 'Great Vibes' },
        { id: 'cinzel', name: 'Cinzel' },
      ],
    })
    const preview = await callRoute(
      previewRoute,
      makeRequest('/api/titles/preview?title=Biscuit%20%26%20Pepper&style=arch&font=great-vibes', { token }),
    )
    expect(preview.status).toBe(200)
    expect(preview.headers.get('content-type')).toBe('image/png')
    expect(await sharp(Buffer.from(await preview.arrayBuffer())).metadata()).toMatchObject({ width: 512, height: 512 })
    const refused = await callRoute(previewRoute, makeRequest('/api/titles/preview?title=%F0%9F%90%B6', { token }))
    expect(refused.status).toBe(422)
    expect((await callRoute(previewRoute, makeRequest('/api/titles/preview?title=Rex'))).status).toBe(401)
  })

  test('is set inside the print-safe area and nowhere else; plain and titled both kept; changed and removed for free', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const submitted = await submitGeneration(token, [photoFile(await petPhoto())], {
      title: 'Biscuit & Pepper',
      titleStyle: 'band',
      titleFont: 'playfair-display',
    })
    expect(submitted.status).toBe(200)
    expect(await creditsOf(user.id)).toBe(8)
    const id = submitted.body.taskId as string
    await runGeneration({ taskId: id }, jobHelpers(1), local)

    const view = await taskJson(id, token)
    const [version] = view.images
    expect(version.title).toEqual({ text: 'Biscuit & Pepper', style: 'band', font: 'playfair-display' })
    expect(version.url).toMatch(new RegExp(`^/media/tasks/${id}/result-titled-[0-9a-f]{12}\\.jpg$`))
    expect(version.plainUrl).toBe(`/media/tasks/${id}/result.png`)
    expect(view.result.imageUrl).toBe(version.url)

    // Pixel by pixel: what differs a lot lies inside the safe area; the rest differs by no more than JPEG's rounding.
    const plain = await sharp(fileOf(version.plainUrl ?? ''))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true })
    const titled = await sharp(fileOf(version.url)).removeAlpha().raw().toBuffer()
    const { width, height } = plain.info
    const safe = printSafeArea(width, height)
    let changedOutside = 0
    let changedInside = 0
    let driftOutside = 0
    let outside = 0
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const at = (y * width + x) * 3
        const diff = Math.max(...[0, 1, 2].map((c) => Math.abs(plain.data[at + c] - titled[at + c])))
        const inside = x >= safe.left && x < safe.left + safe.width && y >= safe.top && y < safe.top + safe.height
        if (inside) {
          if (diff > 60) changedInside++
        } else {
          outside++
          driftOutside += diff
          if (diff > 60) changedOutside++
        }
      }
    }
    expect(changedInside).toBeGreaterThan(2000)
    expect(changedOutside).toBe(0)
    expect(driftOutside / outside).toBeLessThan(3)

    const credits = await creditsOf(user.id)
    const changed = await putTitle(id, token, { index: 0, title: 'Pepper', style: 'plaque', font: 'cinzel' })
    expect(changed).toEqual({
      status: 200,
      body: { message: 'Title set', index: 0, title: { text: 'Pepper', style: 'plaque', font: 'cinzel' } },
    })
    const after = (await taskJson(id, token)).images[0]
    expect(after.url).not.toBe(version.url)
    expect(fs.existsSync(fileOf(version.url))).toBe(false)
    expect(fs.existsSync(fileOf(after.url))).toBe(true)

    expect((await putTitle(id, token, { index: 0, title: '' })).status).toBe(200)
    const removed = (await taskJson(id, token)).images[0]
    expect(removed).toMatchObject({ url: `/media/tasks/${id}/result.png` })
    expect(removed.plainUrl).toBeUndefined()
    expect(fs.existsSync(fileOf(after.url))).toBe(false)
    expect(await creditsOf(user.id)).toBe(credits)

    const other = await createTestUser()
    expect((await putTitle(id, other.token, { index: 0, title: 'Mine' })).status).toBe(404)
    expect((await putTitle(id, token, { index: 3, title: 'Rex' })).status).toBe(400)
    expect((await putTitle(id, token, { index: 0, title: 'x'.repeat(25) })).status).toBe(400)
    const refused = await putTitle(id, token, { index: 0, title: 'Rex 🐶' })
    expect(refused.status).toBe(422)
    expect(refused.body.message).toContain('"🐶"')
    const titledRows = await getDb()
      .selectFrom('task_versions')
      .select('titled_key')
      .where('task_id', '=', id)
      .execute()
    expect(titledRows).toEqual([{ titled_key: null }])
  })
})
