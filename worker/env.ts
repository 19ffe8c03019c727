import os from 'node:os'
import { z } from 'zod'
import {
  type Completed,
  checkSharedRules,
  emptyToUndefined,
  optionalString,
  parseWith,
  positiveInt,
  sharedFields,
} from '#platform/env.server.ts'

/**
 * The worker's own variables on top of the shared ones (platform/env.server.ts): its lanes, the
 * providers with their keys, the chain APIs. Only the worker (and the scripts that check its
 * providers or start it) validates them; README documents each one.
 */
const optionalRpm = z.preprocess(emptyToUndefined, z.coerce.number().int().positive().optional())

const workerFields = sharedFields.extend({
  // The email and maintenance lane; generation runs in lanes of its own (IMAGE_/VIDEO_CONCURRENCY).
  WORKER_CONCURRENCY: positiveInt(2),
  // Requests per minute to the image / video provider, shared by every worker; unset = no limit.
  // IMAGE_PROVIDER_RPM is the first image provider's; each has its own (OPENAI_RPM, GEMINI_RPM).
  IMAGE_PROVIDER_RPM: optionalRpm,
  OPENAI_RPM: optionalRpm,
  GEMINI_RPM: optionalRpm,
  // No response headers within this long is a stall and the version moves to the next provider
  // (default: PROVIDER_TIMEOUT_MS). The circuit breakers: K failures in a window open one, it stays
  // open for the cool-down, then one probe is sent.
  PROVIDER_STALL_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().positive().optional()),
  PROVIDER_BREAKER_FAILURES: positiveInt(5),
  PROVIDER_BREAKER_WINDOW_MS: positiveInt(60_000),
  PROVIDER_BREAKER_COOLDOWN_MS: positiveInt(30_000),
  VIDEO_PROVIDER_RPM: optionalRpm,
  // A task that waited this long in total for its provider (no room, a 429, unreachable) fails and is refunded.
  TASK_MAX_WAIT_MS: positiveInt(15 * 60_000),
  WORKER_SHUTDOWN_GRACE_MS: positiveInt(30_000),
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9092),

  INSTANT_PROVIDER_DELAY_MS: z.coerce.number().int().min(0).default(0),
  OPENAI_IMAGE_MODEL: z.string().default('gpt-image-2'),
  GEMINI_IMAGE_MODEL: z.string().default('gemini-3.1-flash-image'),
  VEO_MODEL: z.string().default('veo-3.1-generate-preview'),
  VEO_FAST_MODEL: z.string().default('veo-3.1-fast-generate-preview'),
  VEO_POLL_INTERVAL_MS: positiveInt(10_000),
  // One image call; image edits take 20-120 s and up to a few minutes under load.
  PROVIDER_TIMEOUT_MS: positiveInt(300_000),
  FFMPEG_PATH: optionalString,
  // Pictures enlarged at once by "Make it bigger" (decision 0036), each by UPSCALE_THREADS threads
  // sharing its tiles, so each keeps that many cores busy (decision 0047).
  UPSCALE_CONCURRENCY: positiveInt(1),
  UPSCALE_THREADS: positiveInt(os.availableParallelism()),
  // Where the upscaler's x2/x4 model folders are; unset = the @upscalerjs/esrgan-slim package's own.
  UPSCALE_MODEL_DIR: optionalString,
  // A running generation task beats every TASK_HEARTBEAT_MS; silent for TASK_STALL_MS, it is recovered.
  TASK_HEARTBEAT_MS: positiveInt(5_000),
  TASK_STALL_MS: positiveInt(60_000),

  TRONGRID_API_URL: z.string().url().default('https://api.trongrid.io'),
  TRONGRID_API_KEY: optionalString,
  ETHERSCAN_API_URL: z.string().url().default('https://api.etherscan.io/v2/api'),
  ETHERSCAN_API_KEY: optionalString,
  CHAIN_API_TIMEOUT_MS: positiveInt(10_000),
})

const schema = workerFields.superRefine((value, ctx) => {
  checkSharedRules(value, ctx)
  const images = value.IMAGE_PROVIDERS
  if (value.NODE_ENV === 'production' && images.includes('instant')) {
    ctx.addIssue({ code: 'custom', path: ['IMAGE_PROVIDERS'], message: 'instant is for tests and benchmarks only' })
  }
  if (images.includes('openai') && !value.OPENAI_API_KEY) {
    ctx.addIssue({ code: 'custom', path: ['OPENAI_API_KEY'], message: 'is required when IMAGE_PROVIDERS has openai' })
  }
  const needsGemini = images.includes('gemini') || value.VIDEO_PROVIDER === 'veo'
  if (needsGemini && !value.GEMINI_API_KEY) {
    ctx.addIssue({ code: 'custom', path: ['GEMINI_API_KEY'], message: 'is required for the gemini and veo providers' })
  }
})

export type WorkerEnv = Completed<z.infer<typeof workerFields>>

export function parseWorkerEnv(source: Record<string, string | undefined> = process.env): WorkerEnv {
  return parseWith(schema, source)
}

let cached: WorkerEnv | undefined

/** The worker's validated environment, parsed on first use. */
export function getWorkerEnv(): WorkerEnv {
  cached ??= parseWorkerEnv()
  return cached
}
