import sharp from 'sharp'
import type { VideoRequest } from '#worker/providers/types.ts'
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
    const video = await veo().generate(request(), ctx)

    expect(video).toEqual({ bytes: fake.video, mimeType: 'video/mp4' })
    const [generation] = fake.generations
    expect(generation.model).toBe('veo-3.0-generate-001')
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
    // Every API call carries the key; the redirected storage download needs none.
    const apiCalls = fake.requests.filter((r) => r.path.startsWith('/v1beta/'))
    expect(apiCalls.length).toBe(5)
    expect(apiCalls.every((r) => r.apiKey === fake.apiKey)).toBe(true)
    expect(fake.requests.at(-1)?.path).toMatch(/^\/storage\//)
    expect(ctx.progress.at(-1)).toBe(100)
    expect(ctx.progress).toEqual([...ctx.progress].sort((a, b) => a - b))
  })

  it('uses the fast model for Fast, sends no image in text mode and keeps portrait at 720p', async () => {
    await veo().generate(request({ mode: 'text', image: null, quality: 'fast', aspectRatio: '9:16' }), testContext())
    const [generation] = fake.generations
    expect(generation.model).toBe('veo-3.0-fast-generate-001')
    expect(generation.body.instances[0].image).toBeUndefined()
    expect(generation.body.parameters).toEqual({ aspectRatio: '9:16', resolution: '720p' })
  })

  it('honours configured models and converts WebP, which Veo does not take, to PNG', async () => {
    const webp = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f80' } })
      .webp()
      .toBuffer()
    await veo({ model: 'veo-custom' }).generate(
      request({ image: { bytes: webp, mimeType: 'image/webp' } }),
      testContext(),
    )
    const [generation] = fake.generations
    expect(generation.model).toBe('veo-custom')
    const image = generation.body.instances[0].image!
    expect(image.mimeType).toBe('image/png')
    expect((await sharp(Buffer.from(image.bytesBase64Encoded, 'base64')).metadata()).format).toBe('png')
  })

  it('fails at once, readably, when the operation ends in an invalid-argument error', async () => {
    fake.outcome = { type: 'error', code: 3, message: 'Image resolution is too small.' }
    const error = await providerFailure(veo().generate(request(), testContext()))
    expect(error.retryable).toBe(false)
    expect(error.message).toBe('Veo could not create the video: Image resolution is too small.')
  })

  it('treats a content refusal in the operation error as final', async () => {
    fake.outcome = {
      type: 'error',
      code: 3,
      message: "The prompt couldn't be submitted. This prompt violates our usage guidelines.",
    }
    const error = await providerFailure(veo().generate(request(), testContext()))
    expect(error.retryable).toBe(false)
    expect(error.message).toMatch(/content rules/)
  })

  it('retries an operation that failed for a transient reason', async () => {
    fake.outcome = { type: 'error', code: 14, message: 'The service is currently unavailable.' }
    const error = await providerFailure(veo().generate(request(), testContext()))
    expect(error.retryable).toBe(true)
    expect(error.message).toMatch(/temporary problem/)
  })

  it('retries when the start is rate limited (429)', async () => {
    fake.outcome = { type: 'rate-limited' }
    const error = await providerFailure(veo().generate(request(), testContext()))
    expect(error).toMatchObject({ retryable: true, status: 429 })
    expect(fake.generations).toHaveLength(0)
  })

  it('refuses for good when the RAI filters removed the video', async () => {
    fake.outcome = { type: 'rai-filtered', reasons: ['The video was filtered because of safety settings.'] }
    const error = await providerFailure(veo().generate(request(), testContext()))
    expect(error.retryable).toBe(false)
    expect(error.message).toMatch(/content rules/)
  })

  it('rides out a few failing polls instead of paying for a new video', async () => {
    fake.failingPolls = 2
    const video = await veo().generate(request(), testContext())
    expect(video.bytes).toEqual(fake.video)
    expect(fake.generations).toHaveLength(1)
  })

  it('gives up, retryably, when the operation outlasts the time limit', async () => {
    fake.pollsUntilDone = 1_000
    const error = await providerFailure(veo({ pollIntervalMs: 20, timeoutMs: 200 }).generate(request(), testContext()))
    expect(error.retryable).toBe(true)
    expect(error.message).toMatch(/did not finish/)
  })

  it('never shows the API key, even when it is rejected', async () => {
    const error = await providerFailure(veo({ apiKey: 'wrong-secret-key' }).generate(request(), testContext()))
    expect(error.retryable).toBe(false)
    expect(error.status).toBe(403)
    expect(error.message).not.toContain('wrong-secret-key')
  })

  it('stops polling when aborted', async () => {
    fake.pollsUntilDone = 1_000
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('shutdown')), 50)
    await expect(veo().generate(request(), testContext(controller.signal))).rejects.toThrow()
    const polls = fake.generations[0].polls
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(fake.generations[0].polls).toBe(polls)
  })
})
