import { createGeminiImageProvider } from '#worker/providers/image/gemini.ts'
import type { GeminiImageConfig } from '#worker/providers/image/gemini.ts'
import { startGeminiFake } from '#tests/fakes/gemini.ts'
import type { GeminiFake, GeminiFakeMode } from '#tests/fakes/gemini.ts'
import { imageRequest, petPhoto, providerFailure, testContext } from './image-fixtures.ts'

let fake: GeminiFake

beforeAll(async () => {
  fake = await startGeminiFake({ slowMs: 3_000 })
})
afterAll(() => fake.close())
beforeEach(() => {
  fake.setMode('success')
  fake.requests.length = 0
})

function gemini(overrides: Partial<GeminiImageConfig> = {}) {
  return createGeminiImageProvider({ apiKey: fake.apiKey, baseUrl: fake.baseUrl, ...overrides })
}

async function failureIn(mode: GeminiFakeMode) {
  fake.setMode(mode)
  return providerFailure(gemini().generate(await imageRequest(), testContext()))
}

describe('Gemini image provider', () => {
  it('sends the prompt and every image inline, asks for an image, and returns it', async () => {
    const photo = await petPhoto('image/png')
    const reference = await petPhoto('image/jpeg', 300, 200)
    const context = testContext()

    const result = await gemini().generate(
      await imageRequest({ images: [photo, reference], prompt: 'A beagle astronaut' }),
      context,
    )

    expect(result).toEqual({ images: [{ bytes: fake.resultPng, mimeType: 'image/png' }] })
    expect(context.progress.at(-1)).toBe(100)
    const [sent] = fake.requests
    expect(sent.model).toBe('gemini-3.1-flash-image')
    expect(sent.apiKey).toBe(fake.apiKey)
    expect(sent.prompt).toBe('A beagle astronaut')
    expect(sent.images.map((image) => image.mimeType)).toEqual(['image/png', 'image/jpeg'])
    expect(sent.images[0].bytes.equals(photo.bytes)).toBe(true)
    expect(sent.images[1].bytes.equals(reference.bytes)).toBe(true)
    expect(sent.generationConfig).toEqual({ responseModalities: ['TEXT', 'IMAGE'] })
  })

  it('uses the configured model', async () => {
    await gemini({ model: 'gemini-3-pro-image-preview' }).generate(await imageRequest(), testContext())
    expect(fake.requests[0].model).toBe('gemini-3-pro-image-preview')
  })

  it('accepts the image part in snake_case', async () => {
    fake.setMode('success_snake_case')
    const { images } = await gemini().generate(await imageRequest(), testContext())
    expect(images[0].bytes.equals(fake.resultPng)).toBe(true)
  })

  it('makes a 429 retryable, and the retry succeeds', async () => {
    const error = await failureIn('rate_limit_once')
    expect(error).toMatchObject({ retryable: true, status: 429 })

    const retried = await gemini().generate(await imageRequest(), testContext())
    expect(retried.images[0].bytes.equals(fake.resultPng)).toBe(true)
  })

  it('makes a 500 retryable', async () => {
    expect(await failureIn('server_error')).toMatchObject({ retryable: true, status: 500 })
  })

  it.each<GeminiFakeMode>(['blocked_prompt', 'image_safety'])(
    'makes a refusal (%s) final and readable',
    async (mode) => {
      const error = await failureIn(mode)
      expect(error.retryable).toBe(false)
      expect(error.message).toBe(
        'Gemini declined to create this image because of its content rules. Try a different photo or description.',
      )
    },
  )

  it('passes on what the model said when it answered without an image', async () => {
    const error = await failureIn('text_only')
    expect(error.retryable).toBe(false)
    expect(error.message).toBe('Gemini answered without an image: "Could you tell me more about the scene you want?"')
  })

  it('reports a malformed answer clearly', async () => {
    const error = await failureIn('malformed')
    expect(error.retryable).toBe(false)
    expect(error.message).toBe('Gemini returned an answer that could not be understood.')
  })

  it('makes a timeout retryable', async () => {
    fake.setMode('slow')
    const error = await providerFailure(gemini({ timeoutMs: 200 }).generate(await imageRequest(), testContext()))
    expect(error.retryable).toBe(true)
    expect(error.message).toBe('Gemini did not answer within 0.2 s.')
  })

  it('makes a rejected API key (400 API_KEY_INVALID) final, asking for an administrator, without the key', async () => {
    const error = await providerFailure(
      gemini({ apiKey: 'wrong-gemini-key' }).generate(await imageRequest(), testContext()),
    )
    expect(error).toMatchObject({ retryable: false, status: 400 })
    expect(error.message).toBe(
      "Gemini refused this server's credentials (HTTP 400, API_KEY_INVALID); an administrator must check the API key.",
    )
    expect(error.message).not.toContain('wrong-gemini-key')
  })

  it('is retryable when the job is interrupted mid-request', async () => {
    fake.setMode('slow')
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const error = await providerFailure(gemini().generate(await imageRequest(), testContext(controller.signal)))
    expect(error.retryable).toBe(true)
    expect(error.message).toBe('The request to Gemini was interrupted.')
  })
})
