/**
 * Google Veo through the Gemini API's long-running operations: `:predictLongRunning` starts a
 * generation and answers an operation name, the operation is looked at (one GET per `check`, the
 * worker re-schedules the job in between) until `done`, and the finished operation names a file
 * URI that is downloaded with the same API key, which goes to the API's own host only (the file
 * URI redirects to a storage host, which gets no key).
 * A content-rule refusal arrives either as the operation's `error` or as a response whose samples
 * were all removed by the RAI filters (`raiMediaFilteredCount`, `raiMediaFilteredReasons`).
 */
import sharp from 'sharp'
import { z } from 'zod'
import {
  errorForAnswer,
  errorForStatus,
  isRetryableStatus,
  refusalError,
  requestBytes,
  requestJson,
  shorten,
} from '../http.ts'
import type { BytesAnswer, HttpCallOptions } from '../http.ts'
import { ProviderError } from '../types.ts'
import type { GeneratedMedia, ImageInput, ProviderContext, VideoOperationProvider, VideoRequest } from '../types.ts'
import { effectiveResolution } from '#domain/generation/video-dimensions.ts'
import { sourceImage } from './source-image.ts'

export interface VeoConfig {
  apiKey: string
  /** Default https://generativelanguage.googleapis.com */
  baseUrl?: string
  /** The Stable quality model. Default veo-3.1-generate-preview */
  model?: string
  /** The Fast quality model. Default veo-3.1-fast-generate-preview */
  fastModel?: string
  /** Wait between two looks at the operation. Default 10 000 ms. */
  pollIntervalMs?: number
  /** Limit for the whole generation, from start to downloaded video. Default 10 minutes. */
  timeoutMs?: number
}

const SERVICE = 'Veo'
/** The longest wait for any one HTTP answer (the download is the slow one). */
const REQUEST_TIMEOUT_MS = 120_000
/** Progress is estimated (Veo reports none): it approaches 90% with this time constant. */
const TYPICAL_GENERATION_MS = 90_000
/** Redirects followed when downloading the video (Google's file URI redirects to storage). */
const MAX_REDIRECTS = 5

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

export function createVeoVideoProvider(config: VeoConfig): VideoOperationProvider {
  const baseUrl = (config.baseUrl ?? 'https://generativelanguage.googleapis.com').replace(/\/+$/, '')
  const models = {
    stable: config.model ?? 'veo-3.1-generate-preview',
    fast: config.fastModel ?? 'veo-3.1-fast-generate-preview',
  }
  const timeoutMs = config.timeoutMs ?? 10 * 60_000
  const headers = { 'x-goog-api-key': config.apiKey }
  const http = (context: ProviderContext): HttpCallOptions => ({
    service: SERVICE,
    signal: context.signal,
    secrets: [config.apiKey],
    timeoutMs: REQUEST_TIMEOUT_MS,
  })

  return {
    name: 'veo',
    pollIntervalMs: config.pollIntervalMs ?? 10_000,

    async start(request, context) {
      const model = models[request.quality]
      const started = await requestJson(
        `${baseUrl}/v1beta/models/${encodeURIComponent(model)}:predictLongRunning`,
        {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(await startBody(request)),
        },
        http(context),
      )
      if (!started.ok) throw errorForAnswer(started, http(context))
      return parseOperation(started.body).name
    },

    async check(name, elapsedMs, context) {
      const answer = await requestJson(`${baseUrl}/v1beta/${name}`, { headers }, http(context))
      if (!answer.ok) throw errorForAnswer(answer, http(context))
      const operation = parseOperation(answer.body)
      if (!operation.done) {
        // Final: a retry would only look at the same operation again.
        if (elapsedMs > timeoutMs) {
          throw new ProviderError(`${SERVICE} did not finish the video within ${formatDuration(timeoutMs)}.`, {
            retryable: false,
          })
        }
        return { done: false, progress: estimatedProgress(elapsedMs) }
      }
      const media = await download(finishedVideoUri(operation), baseUrl, headers, http(context))
      return { done: true, media }
    },
  }
}

async function startBody(request: VideoRequest) {
  const image = sourceImage(request)
  return {
    instances: [{ prompt: request.prompt, ...(image ? { image: await inlineImage(image) } : {}) }],
    parameters: {
      aspectRatio: request.aspectRatio,
      // Our "1280p" (the UI's Higher, 16:9 only) is Veo's 1080p, which Veo 3.1 makes at its
      // default length of 8 seconds only: the length we leave it at.
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

/**
 * An operation that ended in an error is final even when the cause was transient: the task's
 * operation has ended, and starting a second one could bill a second video. The user is refunded
 * and may simply try again.
 */
function operationFailure(error: OperationError): ProviderError {
  const code = error.code ?? 0
  const transient =
    TRANSIENT_RPC_CODES.has(code) ||
    TRANSIENT_RPC_STATUSES.has(error.status ?? '') ||
    (code >= 100 && isRetryableStatus(code))
  if (!transient && CONTENT_REFUSAL.test(error.message)) return refusalError(SERVICE, 'video')
  const detail = shorten(error.message)
  const message = transient
    ? `${SERVICE} had a temporary problem creating the video${detail ? `: ${detail}` : '.'} Please try again.`
    : `${SERVICE} could not create the video${detail ? `: ${detail}` : '.'}`
  return new ProviderError(message, { retryable: false, status: code >= 100 ? code : undefined })
}

async function download(
  uri: string,
  baseUrl: string,
  headers: Record<string, string>,
  http: HttpCallOptions,
): Promise<GeneratedMedia> {
  // Redirects are followed here, not by fetch, which would carry the key header to the storage host.
  const apiOrigin = new URL(baseUrl).origin
  let url = new URL(uri, baseUrl)
  for (let redirects = 0; ; redirects++) {
    const sameHost = url.origin === apiOrigin
    const answer = await requestBytes(url.href, { headers: sameHost ? headers : {}, redirect: 'manual' }, http)
    const location = answer.location
    if (answer.status >= 300 && answer.status < 400 && location && redirects < MAX_REDIRECTS) {
      url = new URL(location, url)
      continue
    }
    return downloadedVideo(answer, http)
  }
}

function downloadedVideo(answer: BytesAnswer, http: HttpCallOptions): GeneratedMedia {
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
