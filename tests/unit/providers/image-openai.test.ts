import { createOpenAiImageProvider } from '#worker/providers/image/openai.ts'
import type { OpenAiImageConfig } from '#worker/providers/image/openai.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import type { OpenAiFake } from '#tests/fakes/openai.ts'
import { imageRequest, petPhoto, providerFailure, testContext } from './image-fixtures.ts'

let fake: OpenAiFake

beforeAll(async () => {
  fake = await startOpenAiFake({ slowMs: 3_000 })
})
afterAll(() => fake.close())
beforeEach(() => {
  fake.setMode('success')
  fake.requests.length = 0
})

function openai(overrides: Partial<OpenAiImageConfig> = {}) {
  return createOpenAiImageProvider({ apiKey: fake.apiKey, baseUrl: fake.baseUrl, ...overrides })
}

describe('OpenAI image provider', () => {
  it('sends the prompt and every image as image[] parts, and returns the generated PNG', async () => {
    const photo = await petPhoto('image/jpeg')
    const reference = await petPhoto('image/webp', 300, 200)
    const context = testContext()

    const result = await openai().generate(
      await imageRequest({ images: [photo, reference], prompt: 'A corgi as a knight' }),
      context,
    )

    expect(result).toEqual({ images: [{ bytes: fake.resultPng, mimeType: 'image/png' }] })
    expect(context.progress.at(-1)).toBe(100)
    const [sent] = fake.requests
    expect(sent).toMatchObject({
      authorization: `Bearer ${fake.apiKey}`,
      model: 'gpt-image-2',
      prompt: 'A corgi as a knight',
      n: '1',
      size: '1024x1024',
    })
    expect(sent.images.map(({ field, filename, type }) => ({ field, filename, type }))).toEqual([
      { field: 'image[]', filename: 'image-1.jpeg', type: 'image/jpeg' },
      { field: 'image[]', filename: 'image-2.webp', type: 'image/webp' },
    ])
    expect(sent.images[0].bytes.equals(photo.bytes)).toBe(true)
    expect(sent.images[1].bytes.equals(reference.bytes)).toBe(true)
  })

  it('uses the configured model and a base URL given with a trailing slash', async () => {
    await openai({ model: 'gpt-image-1-mini', baseUrl: `${fake.baseUrl}/` }).generate(
      await imageRequest(),
      testContext(),
    )
    expect(fake.requests[0].model).toBe('gpt-image-1-mini')
  })

  it('makes a 429 retryable, and the retry succeeds', async () => {
    fake.setMode('rate_limit_once')
    const error = await providerFailure(openai().generate(await imageRequest(), testContext()))
    expect(error).toMatchObject({ retryable: true, status: 429 })
    expect(error.message).toContain('too many requests')

    const retried = await openai().generate(await imageRequest(), testContext())
    expect(retried.images[0].bytes.equals(fake.resultPng)).toBe(true)
  })

  it('makes a 500 retryable', async () => {
    fake.setMode('server_error')
    const error = await providerFailure(openai().generate(await imageRequest(), testContext()))
    expect(error).toMatchObject({ retryable: true, status: 500 })
  })

  it('makes a moderation refusal final, with a readable reason', async () => {
    fake.setMode('moderation')
    const error = await providerFailure(openai().generate(await imageRequest(), testContext()))
    expect(error.retryable).toBe(false)
    expect(error.message).toBe(
      'OpenAI declined to create this image because of its content rules. Try a different photo or description.',
    )
  })

  it('makes a timeout retryable', async () => {
    fake.setMode('slow')
    const started = Date.now()
    const error = await providerFailure(openai({ timeoutMs: 200 }).generate(await imageRequest(), testContext()))
    expect(error.retryable).toBe(true)
    expect(error.message).toBe('OpenAI did not answer within 0.2 s.')
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('reports an answer without an image clearly, and does not retry it', async () => {
    fake.setMode('malformed')
    const error = await providerFailure(openai().generate(await imageRequest(), testContext()))
    expect(error.retryable).toBe(false)
    expect(error.message).toBe('OpenAI answered without a usable image.')
  })

  it('treats a refused API key as final without showing the key', async () => {
    const error = await providerFailure(
      openai({ apiKey: 'sk-wrong-key-123456' }).generate(await imageRequest(), testContext()),
    )
    expect(error).toMatchObject({ retryable: false, status: 401 })
    expect(error.message).toContain('administrator')
    expect(error.message).not.toContain('sk-wrong-key-123456')
  })

  it('makes an unreachable server retryable', async () => {
    const error = await providerFailure(
      openai({ baseUrl: 'http://127.0.0.1:9/v1' }).generate(await imageRequest(), testContext()),
    )
    expect(error.retryable).toBe(true)
    expect(error.message).toBe('OpenAI could not be reached.')
  })

  it('refuses a request without a photo before calling out', async () => {
    const error = await providerFailure(openai().generate(await imageRequest({ images: [] }), testContext()))
    expect(error.retryable).toBe(false)
    expect(fake.requests).toHaveLength(0)
  })
})
