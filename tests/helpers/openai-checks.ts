import { startOpenAiFake } from '#tests/fakes/openai.ts'

/**
 * OpenAI's fake as the web's outside checks see it: the image provider whose vision model the
 * photo check asks, and the moderation endpoint (the key turns moderation on). `env` adds to it.
 */
export async function withOpenAiChecks(env: Record<string, string> = {}) {
  const openai = await startOpenAiFake()
  Object.assign(process.env, {
    IMAGE_PROVIDER: 'openai',
    OPENAI_API_KEY: openai.apiKey,
    OPENAI_BASE_URL: openai.baseUrl,
    PHOTO_CHECK_TIMEOUT_MS: '2000',
    MODERATION_TIMEOUT_MS: '2000',
    ...env,
  })
  afterAll(() => openai.close())
  return openai
}
