/** Builds an image provider by its name in IMAGE_PROVIDERS: the one place providers are listed. */
import type { ImageProvider } from '../types.ts'
import { createGeminiImageProvider } from './gemini.ts'
import { createLocalImageProvider } from './local.ts'
import { createOpenAiImageProvider } from './openai.ts'

export type ImageProviderName = 'local' | 'openai' | 'gemini'

/** Filled from the environment; unset values fall back to each provider's defaults. */
export interface ImageProviderConfig {
  /** IMAGE_PROVIDER */
  provider: ImageProviderName
  /** PROVIDER_TIMEOUT_MS, per remote request. */
  timeoutMs?: number
  /** PROVIDER_STALL_MS: no response headers within it is a stall (default: timeoutMs). */
  stallMs?: number
  /** OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_IMAGE_MODEL */
  openai?: RemoteSettings
  /** GEMINI_API_KEY, GEMINI_BASE_URL, GEMINI_IMAGE_MODEL */
  gemini?: RemoteSettings
}

export interface RemoteSettings {
  apiKey?: string
  baseUrl?: string
  model?: string
}

export function createImageProvider(config: ImageProviderConfig): ImageProvider {
  switch (config.provider) {
    case 'local':
      return createLocalImageProvider()
    case 'openai':
      return createOpenAiImageProvider({
        ...config.openai,
        apiKey: requireKey(config.openai?.apiKey, 'openai', 'OPENAI_API_KEY'),
        timeoutMs: config.timeoutMs,
        stallMs: config.stallMs,
      })
    case 'gemini':
      return createGeminiImageProvider({
        ...config.gemini,
        apiKey: requireKey(config.gemini?.apiKey, 'gemini', 'GEMINI_API_KEY'),
        timeoutMs: config.timeoutMs,
        stallMs: config.stallMs,
      })
    default:
      throw new Error(`Unknown image provider "${String(config.provider)}"; use local, openai or gemini.`)
  }
}

function requireKey(apiKey: string | undefined, provider: string, variable: string): string {
  if (!apiKey) throw new Error(`IMAGE_PROVIDER=${provider} needs ${variable} to be set.`)
  return apiKey
}
