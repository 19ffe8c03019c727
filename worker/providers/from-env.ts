import type { WorkerEnv } from '#worker/env.ts'
import { createImageProvider } from './image/index.ts'
import { createInstantImageProvider } from './instant.ts'
import type { ImageProvider, VideoOperationProvider, VideoProvider } from './types.ts'
import { createVideoProvider } from './video/index.ts'

export type ImageEnv = Pick<
  WorkerEnv,
  | 'IMAGE_PROVIDER'
  | 'INSTANT_PROVIDER_DELAY_MS'
  | 'PROVIDER_TIMEOUT_MS'
  | 'OPENAI_API_KEY'
  | 'OPENAI_BASE_URL'
  | 'OPENAI_IMAGE_MODEL'
  | 'GEMINI_API_KEY'
  | 'GEMINI_BASE_URL'
  | 'GEMINI_IMAGE_MODEL'
>

/** The image provider IMAGE_PROVIDER names, configured from the environment. */
export function imageProviderFromEnv(env: ImageEnv): ImageProvider {
  if (env.IMAGE_PROVIDER === 'instant') return createInstantImageProvider(env.INSTANT_PROVIDER_DELAY_MS)
  return createImageProvider({
    provider: env.IMAGE_PROVIDER,
    timeoutMs: env.PROVIDER_TIMEOUT_MS,
    openai: { apiKey: env.OPENAI_API_KEY, baseUrl: env.OPENAI_BASE_URL, model: env.OPENAI_IMAGE_MODEL },
    gemini: { apiKey: env.GEMINI_API_KEY, baseUrl: env.GEMINI_BASE_URL, model: env.GEMINI_IMAGE_MODEL },
  })
}

export type VideoEnv = Pick<
  WorkerEnv,
  'VIDEO_PROVIDER' | 'GEMINI_API_KEY' | 'GEMINI_BASE_URL' | 'VEO_MODEL' | 'VEO_FAST_MODEL' | 'VEO_POLL_INTERVAL_MS'
>

/** The video provider VIDEO_PROVIDER names, configured from the environment. */
export function videoProviderFromEnv(env: VideoEnv): VideoProvider | VideoOperationProvider {
  return createVideoProvider({
    provider: env.VIDEO_PROVIDER,
    apiKey: env.GEMINI_API_KEY,
    baseUrl: env.GEMINI_BASE_URL,
    model: env.VEO_MODEL,
    fastModel: env.VEO_FAST_MODEL,
    pollIntervalMs: env.VEO_POLL_INTERVAL_MS,
  })
}
