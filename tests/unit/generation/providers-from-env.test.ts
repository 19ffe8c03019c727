import { parseWorkerEnv as parseEnv } from '#worker/env.ts'
import { imageChainFromEnv, imageProviderFromEnv } from '#worker/providers/from-env.ts'

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
    /IMAGE_PROVIDERS: instant is for tests and benchmarks only/,
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

describe('IMAGE_PROVIDERS, the ordered list a version fails over along', () => {
  const keys = { OPENAI_API_KEY: 'sk-test-key', GEMINI_API_KEY: 'g-key' }
  const chainOf = (source: Record<string, string>) => {
    const limits: Array<[string, number | undefined]> = []
    const chain = imageChainFromEnv(parseEnv({ ...base, ...keys, ...source }), (provider, rpm) => {
      limits.push([provider.name, rpm])
      return async (wanted = 1) => wanted
    })
    return { names: chain.links.map((link) => link.provider.name), limits, breakers: chain.breakers }
  }

  test('is read in order; IMAGE_PROVIDER alone is a list of one, and names the first of a list', () => {
    expect(chainOf({ IMAGE_PROVIDERS: 'gemini, openai' }).names).toEqual(['gemini', 'openai'])
    expect(chainOf({ IMAGE_PROVIDER: 'openai' }).names).toEqual(['openai'])
    expect(parseEnv({ ...base, ...keys, IMAGE_PROVIDERS: 'gemini,openai' }).IMAGE_PROVIDER).toBe('gemini')
  })

  test('each provider has its own RPM; IMAGE_PROVIDER_RPM applies to the first when its own is unset', () => {
    expect(chainOf({ IMAGE_PROVIDERS: 'openai,gemini', IMAGE_PROVIDER_RPM: '7', GEMINI_RPM: '3' }).limits).toEqual([
      ['openai', 7],
      ['gemini', 3],
    ])
    expect(chainOf({ IMAGE_PROVIDERS: 'gemini,openai', IMAGE_PROVIDER_RPM: '7', GEMINI_RPM: '3' }).limits).toEqual([
      ['gemini', 3],
      ['openai', undefined],
    ])
  })

  test('the breaker settings come from the environment', () => {
    const { breakers } = chainOf({
      IMAGE_PROVIDERS: 'openai,gemini',
      PROVIDER_BREAKER_FAILURES: '3',
      PROVIDER_BREAKER_WINDOW_MS: '10000',
      PROVIDER_BREAKER_COOLDOWN_MS: '2000',
    })
    expect(breakers).toMatchObject({ failures: 3, windowMs: 10_000, cooldownMs: 2_000 })
  })

  test('a provider named twice, an unknown one, or one without its key is refused', () => {
    expect(() => parseEnv({ ...base, ...keys, IMAGE_PROVIDERS: 'openai,openai' })).toThrow(/names a provider twice/)
    expect(() => parseEnv({ ...base, ...keys, IMAGE_PROVIDERS: 'openai,dalle' })).toThrow(/IMAGE_PROVIDERS/)
    expect(() => parseEnv({ ...base, IMAGE_PROVIDERS: 'local,openai' })).toThrow(/OPENAI_API_KEY: is required/)
  })
})
