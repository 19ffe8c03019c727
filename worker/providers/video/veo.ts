/**
 * Google Veo through the Gemini API's long-running operations: `:predictLongRunning` starts a
 * generation and answers an operation name, the operation is polled until `done`, and the finished
 * operation names a file URI that is downloaded with the same API key.
 * A content-rule refusal arrives either as the operation's `error` or as a response whose samples
 * were all removed by the RAI filters (`raiMediaFilteredCount`, `raiMediaFilteredReasons`).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import sharp from 'sharp'
import { z } from 'zod'
import {
  apiErrorMessage,
  errorForStatus,
  isRetryableStatus,
  refusalError,
  requestBytes,
  requestJson,
  shorten,
} from '../http.ts'
import type { HttpCallOptions } from '../http.ts'
import { ProviderError } from '../types.ts'
import type { GeneratedMedia, ImageInput, VideoProvider, VideoRequest } from '../types.ts'
import { effectiveResolution } from '#app/features/generation/video-dimensions.ts'
import { sourceImage } from './source-image.ts'

export interface VeoConfig {
  apiKey: string
  /** Default https://generativelanguage.googleapis.com */
  baseUrl?: string
  /** The Stable quality model. Default veo-3.0-generate-001 */
  model?: string
  /** The Fast quality model. Default veo-3.0-fast-generate-001 */
  fastModel?: string
  /** Wait between two polls of the operation. Default 10 000 ms. */
  pollIntervalMs?: number
  /** Limit for the whole generation, from start to downloaded video. Default 10 minutes. */
  timeoutMs?: number
}

const SERVICE = 'Veo'
/** The longest wait for any one HTTP answer (the download is the slow one). */
const REQUEST_TIMEOUT_MS = 120_000
/** Transient poll failures tolerated in a row: retrying the job would pay for a new video. */
const MAX_POLL_FAILURES = 3
/** Progress is estimated (Veo reports none): it approaches 90% with this time constant. */
const TYPICAL_GENERATION_MS = 90_000

/** google.rpc codes of transient failures; other codes (INVALID_ARGUMENT...) are final. */
const TRANSIENT_RPC_CODES = new Map([
  [4, 'DEADLINE_EXCEEDED'],
  [8, 'RESOURCE_EXHAUSTED'],
  [10, 'ABORTED'],
  [13, 'INTERNAL'],
  [14, 'UNAVAILABLE'],
])
const TRANSIENT_RPC_STATUSES = new Set(TRANSIENT_RPC_CODES.values())
const CONTENT_REFUSAL = /safety|policy|policies|guideline|responsible ai|\brai\b|prohibited|blocked|filtered/i

const operationSchema = z.object({
  name: z.string().min(1),
  done: z.boolean().default(false),
  error: z
    .object({ code: z.number().optional(), message: z.string().default(''), status: z.string().optional() })
    .optional(),
  response: z
    .object({
      generateVideoResponse: z
        .object({
          generatedSamples: z
            .array(z.object({ video: z.object({ uri: z.string().optional() }).optional() }))
            .default([]),
          raiMediaFilteredCount: z.number().default(0),
          raiMediaFilteredReasons: z.array(z.string()).default([]),
        })
        .optional(),
    })
    .optional(),
})

type Operation = z.infer<typeof operationSchema>
type OperationError = NonNullable<Operation['error']>

export function createVeoVideoProvider(config: VeoConfig): VideoProvider {
  const baseUrl = (config.baseUrl ?? 'https://generativelanguage.googleapis.com').replace(/\/+$/, '')
  const models = {
    stable: config.model ?? 'veo-3.0-generate-001',
    fast: config.fastModel ?? 'veo-3.0-fast-generate-001',
  }
  const pollIntervalMs = config.pollIntervalMs ?? 10_000
  const timeoutMs = config.timeoutMs ?? 10 * 60_000
  const headers = { 'x-goog-api-key': config.apiKey }

  return {
    name: 'veo',
    async generate(request, context) {
      const startedAt = Date.now()
      const deadline = startedAt + timeoutMs
      const http = (): HttpCallOptions => ({
        service: SERVICE,
        signal: context.signal,
        secrets: [config.apiKey],
        timeoutMs: Math.max(1, Math.min(REQUEST_TIMEOUT_MS, deadline - Date.now())),
      })

      const model = models[request.quality]
      const started = await requestJson(
        `${baseUrl}/v1beta/models/${encodeURIComponent(model)}:predictLongRunning`,
        {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(await startBody(request)),
        },
        http(),
      )
      if (!started.ok) throw errorForStatus(started.status, apiErrorMessage(started), http())
      let operation = parseOperation(started.body)
      await context.onProgress(5)

      let failuresInARow = 0
      while (!operation.done) {
        if (Date.now() + pollIntervalMs > deadline) {
          throw new ProviderError(`${SERVICE} did not finish the video within ${formatDuration(timeoutMs)}.`, {
            retryable: true,
          })
        }
        await sleep(pollIntervalMs, undefined, { signal: context.signal })
        try {
          operation = await pollOperation(`${baseUrl}/v1beta/${operation.name}`, headers, http())
          failuresInARow = 0
        } catch (error) {
          const transient = error instanceof ProviderError && error.retryable && !context.signal.aborted
          if (!transient || ++failuresInARow >= MAX_POLL_FAILURES) throw error
        }
        await context.onProgress(estimatedProgress(Date.now() - startedAt))
      }

      const video = await download(finishedVideoUri(operation), baseUrl, headers, http())
      await context.onProgress(100)
      return video
    },
  }
}

async function startBody(request: VideoRequest) {
  const image = sourceImage(request)
  return {
    instances: [{ prompt: request.prompt, ...(image ? { image: await inlineImage(image) } : {}) }],
    parameters: {
      aspectRatio: request.aspectRatio,
      // Our "1280p" (the UI's Higher) is Veo's 1080p; portrait is 720p only.
      resolution: effectiveResolution(request.aspectRatio, request.resolution) === '1280p' ? '1080p' : '720p',
    },
  }
}

/** Veo accepts JPEG and PNG images only, so WebP is converted. */
async function inlineImage(image: ImageInput) {
  if (image.mimeType !== 'image/webp') {
    return { bytesBase64Encoded: image.bytes.toString('base64'), mimeType: image.mimeType }
  }
  const png = await sharp(image.bytes).png().toBuffer()
  return { bytesBase64Encoded: png.toString('base64'), mimeType: 'image/png' }
}

async function pollOperation(url: string, headers: Record<string, string>, http: HttpCallOptions) {
  const answer = await requestJson(url, { headers }, http)
  if (!answer.ok) throw errorForStatus(answer.status, apiErrorMessage(answer), http)
  return parseOperation(answer.body)
}

function parseOperation(body: unknown): Operation {
  const parsed = operationSchema.safeParse(body)
  if (parsed.success) return parsed.data
  throw new ProviderError(`${SERVICE} returned an answer that could not be understood.`, { retryable: false })
}

/** The URI of the finished video, or the error explaining why there is none. */
function finishedVideoUri(operation: Operation): string {
  if (operation.error) throw operationFailure(operation.error)
  const answer = operation.response?.generateVideoResponse
  const uri = answer?.generatedSamples.find((sample) => sample.video?.uri)?.video?.uri
  if (uri) return uri
  if (answer && (answer.raiMediaFilteredCount > 0 || answer.raiMediaFilteredReasons.length > 0)) {
    throw refusalError(SERVICE, 'video')
  }
  throw new ProviderError(`${SERVICE} finished without returning a video.`, { retryable: false })
}

function operationFailure(error: OperationError): ProviderError {
  const code = error.code ?? 0
  const transient =
    TRANSIENT_RPC_CODES.has(code) ||
    TRANSIENT_RPC_STATUSES.has(error.status ?? '') ||
    (code >= 100 && isRetryableStatus(code))
  if (!transient && CONTENT_REFUSAL.test(error.message)) return refusalError(SERVICE, 'video')
  const detail = shorten(error.message)
  const message = transient
    ? `${SERVICE} had a temporary problem creating the video${detail ? `: ${detail}` : '.'}`
    : `${SERVICE} could not create the video${detail ? `: ${detail}` : '.'}`
  return new ProviderError(message, { retryable: transient, status: code >= 100 ? code : undefined })
}

async function download(
  uri: string,
  baseUrl: string,
  headers: Record<string, string>,
  http: HttpCallOptions,
): Promise<GeneratedMedia> {
  // The key is sent only to the API's own host (where Google's file URIs point), never to a foreign URI.
  const url = new URL(uri, baseUrl)
  const sameHost = url.origin === new URL(baseUrl).origin
  const answer = await requestBytes(url.href, { headers: sameHost ? headers : {} }, http)
  if (!answer.ok) throw errorForStatus(answer.status, '', http)
  if (answer.bytes.length === 0) {
    throw new ProviderError(`${SERVICE} returned an empty video file.`, { retryable: true })
  }
  const mimeType = answer.contentType.split(';')[0].trim()
  return { bytes: answer.bytes, mimeType: mimeType.startsWith('video/') ? mimeType : 'video/mp4' }
}

/** Rises quickly at first, then ever more slowly toward 90%: Veo usually takes one to three minutes. */
function estimatedProgress(elapsedMs: number): number {
  return Math.round(5 + 85 * (1 - Math.exp(-elapsedMs / TYPICAL_GENERATION_MS)))
}

function formatDuration(ms: number): string {
  return ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`
}
