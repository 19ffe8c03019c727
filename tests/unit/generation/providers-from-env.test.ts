import { parseWorkerEnv as parseEnv } from '#worker/env.ts'
import { imageProviderFromEnv } from '#worker/providers/from-env.ts'

const base = { DATA_DIR: 'tests/.tmp/data' }

test('IMAGE_PROVIDER picks the provider, configured from the environment', () => {
  expect(imageProviderFromEnv(parseEnv({ ...base })).name).toBe('local')
  expect(imageProviderFromEnv(parseEnv({ ...base, IMAGE_PROVIDER: 'instant' })).name).toBe('instant')
  const openai = parseEnv({ ...base, IMAGE_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test-key' })
  expect(imageProviderFromEnv(openai).name).toBe('openai')
  const gemini = parseEnv({ ...base, IMAGE_PROVIDER: 'gemini', GEMINI_API_KEY: 'g-key' })
  expect(imageProviderFromEnv(gemini).name).toBe('gemini')
})

test('the instant provider is refused in production', () => {
  expect(() => parseEnv({ ...base, NODE_ENV: 'production', SESSION_SECRET: 's', IMAGE_PROVIDER: 'instant' })).toThrow(
    /IMAGE_PROVIDER: instant is for tests and benchmarks only/,
  )
})

test('the instant provider answers the photo, and stops when the job is aborted', async () => {
  const photo = { bytes: Buffer.from([0xff, 0xd8, 0xff, 0xe0]), mimeType: 'image/jpeg' as const }
  const request = { images: [photo], prompt: 'p', style: 'general', guided: null }
  const quick = parseEnv({ ...base, IMAGE_PROVIDER: 'instant' })
  const context = { signal: new AbortController().signal, onProgress: () => {} }
  expect(await imageProviderFromEnv(quick).generate(request, context)).toEqual({ images: [photo] })

  const slow = imageProviderFromEnv(
    parseEnv({ ...base, IMAGE_PROVIDER: 'instant', INSTANT_PROVIDER_DELAY_MS: '60000' }),
  )
  const controller = new AbortController()
  const pending = slow.generate(request, { signal: controller.signal, onProgress: () => {} })
  controller.abort()
  await expect(pending).rejects.toMatchObject({ name: 'ProviderError', retryable: true })
})
