import type { WorkerEnv } from '#worker/env.ts'
import { createImageProvider } from './image/index.ts'
import { createInstantImageProvider } from './instant.ts'
import type { ProviderChain } from './failover.ts'
import type { BeforeRequest } from './shared-rate-limit.ts'
import type { ImageProvider, VideoOperationProvider, VideoProvider } from './types.ts'
import { createVideoProvider } from './video/index.ts'

export type ImageEnv = Pick<
  WorkerEnv,
  | 'IMAGE_PROVIDER'
  | 'INSTANT_PROVIDER_DELAY_MS'
  | 'PROVIDER_TIMEOUT_MS'
  | 'PROVIDER_STALL_MS'
  | 'OPENAI_API_KEY'
  | 'OPENAI_BASE_URL'
  | 'OPENAI_IMAGE_MODEL'
  | 'GEMINI_API_KEY'
  | 'GEMINI_BASE_URL'
  | 'GEMINI_IMAGE_MODEL'
>

/** The image provider `name` (default: the first of IMAGE_PROVIDERS), configured from the environment. */
export function imageProviderFromEnv(env: ImageEnv, name = env.IMAGE_PROVIDER): ImageProvider {
  if (name === 'instant') return createInstantImageProvider(env.INSTANT_PROVIDER_DELAY_MS)
  return createImageProvider({
    provider: name,
    timeoutMs: env.PROVIDER_TIMEOUT_MS,
    stallMs: env.PROVIDER_STALL_MS,
    openai: { apiKey: env.OPENAI_API_KEY, baseUrl: env.OPENAI_BASE_URL, model: env.OPENAI_IMAGE_MODEL },
    gemini: { apiKey: env.GEMINI_API_KEY, baseUrl: env.GEMINI_BASE_URL, model: env.GEMINI_IMAGE_MODEL },
  })
}

type ChainEnv = ImageEnv &
  Pick<
    WorkerEnv,
    | 'IMAGE_PROVIDERS'
    | 'IMAGE_PROVIDER_RPM'
    | 'OPENAI_RPM'
    | 'GEMINI_RPM'
    | 'PROVIDER_BREAKER_FAILURES'
    | 'PROVIDER_BREAKER_WINDOW_MS'
    | 'PROVIDER_BREAKER_COOLDOWN_MS'
  >

/**
 * IMAGE_PROVIDERS in order, each with its own shared rate limit (OPENAI_RPM, GEMINI_RPM; the first
 * also takes IMAGE_PROVIDER_RPM when its own is unset) and circuit breaker.
 */
export function imageChainFromEnv(
  env: ChainEnv,
  limitFor: (provider: ImageProvider, rpm: number | undefined) => BeforeRequest,
): ProviderChain {
  const ownRpm: Record<string, number | undefined> = { openai: env.OPENAI_RPM, gemini: env.GEMINI_RPM }
  return {
    links: env.IMAGE_PROVIDERS.map((name, index) => {
      const provider = imageProviderFromEnv(env, name)
      const rpm = ownRpm[name] ?? (index === 0 ? env.IMAGE_PROVIDER_RPM : undefined)
      return { provider, beforeRequest: limitFor(provider, rpm) }
    }),
    breakers: {
      failures: env.PROVIDER_BREAKER_FAILURES,
      windowMs: env.PROVIDER_BREAKER_WINDOW_MS,
      cooldownMs: env.PROVIDER_BREAKER_COOLDOWN_MS,
      // A probe's call ends by the request timeout; past it (and a margin) its worker is gone.
      probeTimeoutMs: env.PROVIDER_TIMEOUT_MS + 30_000,
    },
  }
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
