import { createImageProvider } from '#worker/providers/image/index.ts'
import type { ImageProviderName } from '#worker/providers/image/index.ts'
import { startGeminiFake } from '#tests/fakes/gemini.ts'
import type { GeminiFake } from '#tests/fakes/gemini.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import type { OpenAiFake } from '#tests/fakes/openai.ts'
import { imageRequest, testContext } from './image-fixtures.ts'

let openai: OpenAiFake
let gemini: GeminiFake

beforeAll(async () => {
  ;[openai, gemini] = await Promise.all([startOpenAiFake(), startGeminiFake()])
})
afterAll(() => Promise.all([openai.close(), gemini.close()]))

describe('createImageProvider', () => {
  it('builds the offline renderer for local', () => {
    expect(createImageProvider({ provider: 'local' }).name).toBe('local')
  })

  it('wires the OpenAI settings through', async () => {
    const provider = createImageProvider({
      provider: 'openai',
      timeoutMs: 5_000,
      openai: { apiKey: openai.apiKey, baseUrl: openai.baseUrl, model: 'gpt-image-1.5' },
    })
    expect(provider.name).toBe('openai')
    await provider.generate(await imageRequest(), testContext())
    expect(openai.requests.at(-1)?.model).toBe('gpt-image-1.5')
  })

  it('wires the Gemini settings through', async () => {
    const provider = createImageProvider({
      provider: 'gemini',
      gemini: { apiKey: gemini.apiKey, baseUrl: gemini.baseUrl, model: 'gemini-3-pro-image-preview' },
    })
    expect(provider.name).toBe('gemini')
    await provider.generate(await imageRequest(), testContext())
    expect(gemini.requests.at(-1)?.model).toBe('gemini-3-pro-image-preview')
  })

  it('names the missing key of a remote provider', () => {
    expect(() => createImageProvider({ provider: 'openai', openai: { apiKey: '' } })).toThrow(
      'IMAGE_PROVIDER=openai needs OPENAI_API_KEY to be set.',
    )
    expect(() => createImageProvider({ provider: 'gemini' })).toThrow(
      'IMAGE_PROVIDER=gemini needs GEMINI_API_KEY to be set.',
    )
  })

  it('rejects an unknown provider name', () => {
    expect(() => createImageProvider({ provider: 'dall-e' as ImageProviderName })).toThrow(
      /Unknown image provider "dall-e"/,
    )
  })
})
