import { getMetrics } from '#platform/metrics.server.ts'
import { startGeminiFake } from '#tests/fakes/gemini.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { balanceAndLedgerSum, photoFile, submitGeneration, tasksOf, withOwnDataDir } from '#tests/helpers/generation.ts'
import { drawnPetPhoto } from '#tests/helpers/pet-photos.ts'

// With Gemini as the image provider the web asks Gemini's cheapest vision model.
withOwnDataDir()
const gemini = await startGeminiFake()
Object.assign(process.env, { IMAGE_PROVIDER: 'gemini', GEMINI_API_KEY: gemini.apiKey, GEMINI_BASE_URL: gemini.baseUrl })
afterAll(() => gemini.close())

test('traits from Gemini go on the task; "no pet" is refused with 422 and nothing charged', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  expect((await submitGeneration(token, [photoFile(await drawnPetPhoto())])).status).toBe(200)
  expect((await tasksOf(user.id))[0].params).toMatchObject({
    traits: { species: 'cat', breed: 'domestic shorthair', colours: ['ginger', 'white'], markings: ['white chest'] },
  })
  expect(gemini.visionRequests).toMatchObject([
    { model: 'gemini-3.5-flash-lite', images: [{ mimeType: 'image/jpeg' }] },
  ])
  // The image model was not called: the vision call is not a generation.
  expect(gemini.requests).toEqual([])

  gemini.setVisionAnswer({
    pet_found: false,
    pet_count: 0,
    species: '',
    breed_guess: '',
    main_colours: [],
    markings: [],
    problems: [],
  })
  const { status, body } = await submitGeneration(token, [photoFile(await drawnPetPhoto({ coat: '#303030' }))])
  expect(status).toBe(422)
  expect(body.message).toMatch(/^We couldn't find a pet in this photo/)
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 8, ledgerSum: 8 })
})

test('a Gemini 5xx leaves the local checks to decide, counted as a skip', async () => {
  gemini.setMode('server_error')
  const { token } = await createTestUser({ credits: 10 })
  expect((await submitGeneration(token, [photoFile(await drawnPetPhoto({ coat: '#8a7a6a' }))])).status).toBe(200)
  const counted = (await getMetrics().photoCheckVisionSkipped.get()).values
  expect(counted).toContainEqual(expect.objectContaining({ labels: { reason: 'server_error' }, value: 1 }))
})
