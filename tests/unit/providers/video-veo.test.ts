import sharp from 'sharp'
import type { ProviderContext, VideoOperationProvider, VideoRequest } from '#worker/providers/types.ts'
import { createVeoVideoProvider } from '#worker/providers/video/veo.ts'
import type { VeoConfig } from '#worker/providers/video/veo.ts'
import { startFakeVeo } from '#tests/fakes/veo.ts'
import type { FakeVeo } from '#tests/fakes/veo.ts'
import { providerFailure, testContext } from './provider-fixtures.ts'

let fake: FakeVeo
const photo = Buffer.from('fake png bytes')

beforeAll(async () => {
  fake = await startFakeVeo()
})
afterAll(() => fake.close())
beforeEach(() => fake.reset())

function veo(overrides: Partial<VeoConfig> = {}) {
  return createVeoVideoProvider({ apiKey: fake.apiKey, baseUrl: fake.baseUrl, pollIntervalMs: 5, ...overrides })
}

/** What the worker does over several runs: start once, then look until done (no sleeping needed here). */
async function generate(provider: VideoOperationProvider, videoRequest: VideoRequest, context: ProviderContext) {
  const operation = await provider.start(videoRequest, context)
  for (let elapsedMs = 0; ; elapsedMs += provider.pollIntervalMs) {
    const state = await provider.check(operation, elapsedMs, context)
    await context.onProgress(state.done ? 100 : state.progress)
    if (state.done) return state.media
  }
}

function request(overrides: Partial<VideoRequest> = {}): VideoRequest {
  return {
    mode: 'image',
    image: { bytes: photo, mimeType: 'image/png' },
    prompt: 'My corgi wearing sunglasses, surfing a wave',
    aspectRatio: '16:9',
    resolution: '1280p',
    quality: 'stable',
    ...overrides,
  }
}

describe('Veo video provider', () => {
  it('starts, polls and downloads the video, passing model, options and image through', async () => {
    fake.pollsUntilDone = 3
    const ctx = testContext()
    const video = await generate(veo(), request(), ctx)

    expect(video).toEqual({ bytes: fake.video, mimeType: 'video/mp4' })
    const [generation] = fake.generations
    expect(generation.model).toBe('veo-3.1-generate-preview')
    expect(generation.polls).toBe(3)
    expect(generation.body).toEqual({
      instances: [
        {
          prompt: 'My corgi wearing sunglasses, surfing a wave',
          image: { bytesBase64Encoded: photo.toString('base64'), mimeType: 'image/png' },
        },
      ],
      parameters: { aspectRatio: '16:9', resolution: '1080p' },
    })
    // Every API call carries the key; the redirected storage download (another host) gets none.
    const apiCalls = fake.requests.filter((r) => r.path.startsWith('/v1beta/'))
    expect(apiCalls.length).toBe(5)
    expect(apiCalls.every((r) => r.apiKey === fake.apiKey)).toBe(true)
    expect(fake.requests.at(-1)?.path).toMatch(/^\/storage\//)
    expect(fake.requests.at(-1)?.apiKey).toBeUndefined()
    expect(ctx.progress.at(-1)).toBe(100)
    expect(ctx.progress).toEqual([...ctx.progress].sort((a, b) => a - b))
  })

  it('uses the fast model for Fast, sends no image in text mode and keeps portrait at 720p', async () => {
    await generate(veo(), request({ mode: 'text', image: null, quality: 'fast', aspectRatio: '9:16' }), testContext())
    const [generation] = fake.generations
    expect(generation.model).toBe('veo-3.1-fast-generate-preview')
    expect(generation.body.instances[0].image).toBeUndefined()
    expect(generation.body.parameters).toEqual({ aspectRatio: '9:16', resolution: '720p' })
  })

  it('honours configured models and converts WebP, which Veo does not take, to PNG', async () => {
    const webp = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f80' } })
      .webp()
      .toBuffer()
    await generate(
      veo({ model: 'veo-3.1-fast-generate-preview' }),
      request({ image: { bytes: webp, mimeType: 'image/webp' } }),
      testContext(),
    )
    const [generation] = fake.generations
    expect(generation.model).toBe('veo-3.1-fast-generate-preview')
    const image = generation.body.instances[0].image!
    expect(image.mimeType).toBe('image/png')
    expect((await sharp(Buffer.from(image.bytesBase64Encoded, 'base64')).metadata()).format).toBe('png')
  })

  it('fails at once, readably, when the operation ends in an invalid-argument error', async () => {
    fake.outcome = { type: 'error', code: 3, message: 'Image resolution is too small.' }
    const error = await providerFailure(generate(veo(), request(), testContext()))
    expect(error.retryable).toBe(false)
    expect(error.message).toBe('Veo could not create the video: Image resolution is too small.')
  })

  it('treats a content refusal in the operation error as final', async () => {
    fake.outcome = {
      type: 'error',
      code: 3,
      message: "The prompt couldn't be submitted. This prompt violates our usage guidelines.",
    }
    const error = await providerFailure(generate(veo(), request(), testContext()))
    expect(error.retryable).toBe(false)
    expect(error.message).toMatch(/content rules/)
  })

  it('ends a task whose operation failed for a transient reason: a retry would pay for a second video', async () => {
    fake.outcome = { type: 'error', code: 14, message: 'The service is currently unavailable.' }
    const error = await providerFailure(generate(veo(), request(), testContext()))
    expect(error.retryable).toBe(false)
    expect(error.message).toMatch(/temporary problem/)
  })

  it('waits for RetryInfo when the start is rate limited (429)', async () => {
    fake.outcome = { type: 'rate-limited' }
    const error = await providerFailure(generate(veo(), request(), testContext()))
    expect(error).toMatchObject({ retryable: true, status: 429, retryAfterMs: 1000, quotaExhausted: false })
    expect(fake.generations).toHaveLength(0)
  })

  it('fails at once when the daily quota is used up (RESOURCE_EXHAUSTED, PerDay)', async () => {
    fake.outcome = { type: 'quota-exhausted' }
    const error = await providerFailure(generate(veo(), request(), testContext()))
    expect(error).toMatchObject({ retryable: false, status: 429, quotaExhausted: true })
  })

  it('refuses a model Google does not have (404 NOT_FOUND), finally', async () => {
    const error = await providerFailure(generate(veo({ model: 'veo-3.0-generate-001' }), request(), testContext()))
    expect(error).toMatchObject({ retryable: false, status: 404 })
    expect(error.message).toContain('veo-3.0-generate-001 is not found')
  })

  it('refuses for good when the RAI filters removed the video', async () => {
    fake.outcome = { type: 'rai-filtered', reasons: ['The video was filtered because of safety settings.'] }
    const error = await providerFailure(generate(veo(), request(), testContext()))
    expect(error.retryable).toBe(false)
    expect(error.message).toMatch(/content rules/)
  })

  it('makes a failing look retryable, and the next look at the same operation succeeds', async () => {
    const provider = veo()
    const operation = await provider.start(request(), testContext())
    fake.failingPolls = 1
    const error = await providerFailure(provider.check(operation, 0, testContext()))
    expect(error).toMatchObject({ retryable: true, status: 503 })
    expect(await provider.check(operation, 0, testContext())).toMatchObject({ done: false })
    expect(await provider.check(operation, 0, testContext())).toMatchObject({ done: true })
    expect(fake.generations).toHaveLength(1)
  })

  it('gives up for good when the operation outlasts the time limit', async () => {
    fake.pollsUntilDone = 1_000
    const provider = veo({ timeoutMs: 200 })
    const operation = await provider.start(request(), testContext())
    expect(await provider.check(operation, 100, testContext())).toMatchObject({ done: false })
    const error = await providerFailure(provider.check(operation, 201, testContext()))
    expect(error.retryable).toBe(false)
    expect(error.message).toMatch(/did not finish/)
  })

  it('never shows the API key, even when it is rejected (400 API_KEY_INVALID)', async () => {
    const error = await providerFailure(generate(veo({ apiKey: 'wrong-secret-key' }), request(), testContext()))
    expect(error.retryable).toBe(false)
    expect(error.status).toBe(400)
    expect(error.message).toMatch(/refused this server's credentials/)
    expect(error.message).not.toContain('wrong-secret-key')
  })
})
