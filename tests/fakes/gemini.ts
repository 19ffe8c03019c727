/**
 * A local stand-in for Gemini's generateContent (POST /v1beta/models/{model}:generateContent; the
 * text models that read images, for the photo check, in gemini-vision.ts) and
 * model lookup (GET /v1beta/models/{model}), speaking their wire format as the Gemini API reference
 * describes it: JSON parts in, candidates with an inlineData image part out, refusals as a 200
 * without an image, errors as `{ error: { code, message, status, details } }`. Like the real API it
 * answers a bad key with 400 API_KEY_INVALID, more than 14 input images with 400 INVALID_ARGUMENT, a model that does not exist (or was retired) with
 * 404 NOT_FOUND, and an exhausted quota with 429 RESOURCE_EXHAUSTED (RetryInfo for a per-minute
 * quota, a PerDay QuotaFailure for a daily one). `generationConfig.imageConfig` is checked as the
 * image-generation guide documents it: `imageSize` one of "1K", "2K", "4K" (upper-case K; anything
 * else is 400 INVALID_ARGUMENT), `aspectRatio` one of the listed ratios; a square "2K" or "4K"
 * answers an image of that size (2048 or 4096 px), the default 1K the small sample PNG.
 * Point GEMINI_BASE_URL at `fake.baseUrl`.
 */
import sharp from 'sharp'
import { z } from 'zod'
import {
  modelResource,
  sendApiKeyInvalid,
  sendGoogleError,
  sendModelNotFound,
  sendResourceExhausted,
} from './google-errors.ts'
import { answerVisionContent, GEMINI_VISION_MODELS } from './gemini-vision.ts'
import { sendJson, waitUnlessClosed } from './http-fake.ts'
import { startImageApiFake } from './image-api-fake.ts'
import type { ImageApiFake, ImageApiFakeOptions } from './image-api-fake.ts'

export type GeminiFakeMode =
  | 'success'
  /** The image part in snake_case (`inline_data`), as some proxies return it. */
  | 'success_snake_case'
  /** 429 for the next request (per-minute quota, RetryInfo 1s), then success. */
  | 'rate_limit_once'
  /** 429 RESOURCE_EXHAUSTED on the per-day quota: nothing passes until tomorrow. */
  | 'quota_exhausted_daily'
  | 'server_error'
  /** 503 UNAVAILABLE "The model is overloaded", Gemini's answer under load. */
  | 'unavailable'
  /** Accepts the request and never answers (not even headers), until the client hangs up. */
  | 'hang'
  /** 403 PERMISSION_DENIED: the key was blocked (reported as leaked). */
  | 'forbidden'
  /** 402 RESOURCE_EXHAUSTED: the billing account's Prepay credit is used up (every key stops). */
  | 'prepay_depleted'
  /** 400 FAILED_PRECONDITION: no free tier in this country and billing not enabled. */
  | 'billing_required'
  /** The prompt itself was blocked: promptFeedback.blockReason, no candidates. */
  | 'blocked_prompt'
  /** The generated image was withheld: finishReason IMAGE_SAFETY. */
  | 'image_safety'
  /** The model replied in words only. */
  | 'text_only'
  /** 200 whose body does not have the documented shape. */
  | 'malformed'
  /** Success after `slowMs`. */
  | 'slow'

export interface RecordedGeminiRequest {
  model: string
  apiKey: string | undefined
  /** The text parts, joined by newlines. */
  prompt: string
  images: { mimeType: string; bytes: Buffer }[]
  generationConfig: unknown
}

/** `baseUrl` is the value for GEMINI_BASE_URL. */
export type GeminiFake = ImageApiFake<GeminiFakeMode, RecordedGeminiRequest>

interface WirePart {
  text?: string
  inline_data?: { mime_type: string; data: string }
  inlineData?: { mimeType: string; data: string }
}

/** The current Gemini image models (gemini-2.5-flash-image was retired on 2026-10-02). */
const GEMINI_IMAGE_MODELS = ['gemini-3.1-flash-image', 'gemini-3.1-flash-image-preview', 'gemini-3-pro-image-preview']

/** The Gemini 3 image models take up to 14 reference images a request (image-generation guide). */
export const GEMINI_MAX_INPUT_IMAGES = 14

/** The image-generation guide's values for generationConfig.imageConfig. */
const IMAGE_SIZES: Record<string, number> = { '1K': 1024, '2K': 2048, '4K': 4096 }
const ASPECT_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9']
const imageConfigSchema = z
  .object({ aspectRatio: z.string().optional(), imageSize: z.string().optional() })
  .passthrough()
  .optional()

/** Why the API refuses an imageConfig, or null. */
function imageConfigProblem(config: z.infer<typeof imageConfigSchema>): string | null {
  if (config?.imageSize !== undefined && !(config.imageSize in IMAGE_SIZES)) {
    return `Invalid value at 'generation_config.image_config.image_size' ("${config.imageSize}"): use 1K, 2K or 4K.`
  }
  if (config?.aspectRatio !== undefined && !ASPECT_RATIOS.includes(config.aspectRatio)) {
    return `Invalid value at 'generation_config.image_config.aspect_ratio' ("${config.aspectRatio}").`
  }
  return null
}

const ROUTE = /^\/v1beta\/models\/([^/:]+):generateContent$/
const LOOKUP = /^\/v1beta\/models\/([^/:]+)$/

export function startGeminiFake(options: ImageApiFakeOptions = {}): Promise<GeminiFake> {
  return startImageApiFake<GeminiFakeMode, RecordedGeminiRequest>(options, {
    defaultApiKey: 'test-gemini-fake-key',
    colour: '#5a87c8',
    async handle(request, response, state) {
      const apiKeyHeader = request.headers['x-goog-api-key']
      const lookup = LOOKUP.exec(request.path)?.[1]
      if (request.method === 'GET' && lookup) {
        if (apiKeyHeader !== state.apiKey) return sendApiKeyInvalid(response)
        if (!GEMINI_IMAGE_MODELS.includes(lookup)) return sendModelNotFound(response, lookup, 'get')
        return sendJson(response, 200, modelResource(lookup, ['generateContent', 'countTokens']))
      }
      const model = ROUTE.exec(request.path)?.[1]
      if (request.method !== 'POST' || !model) {
        return sendGoogleError(response, 404, `Method not found: ${request.path}`, 'NOT_FOUND')
      }
      let body: { contents?: { parts?: WirePart[] }[]; generationConfig?: unknown }
      try {
        body = JSON.parse(request.body.toString('utf8'))
      } catch {
        return sendGoogleError(response, 400, 'Invalid JSON payload received.', 'INVALID_ARGUMENT')
      }
      // A vision call (the photo check) is recorded in visionRequests.
      if (GEMINI_VISION_MODELS.includes(model)) {
        if (apiKeyHeader !== state.apiKey) return sendApiKeyInvalid(response)
        if (state.mode === 'server_error') {
          return sendGoogleError(response, 500, 'An internal error has occurred.', 'INTERNAL')
        }
        if (state.mode === 'slow') {
          await waitUnlessClosed(response, options.slowMs ?? 5_000)
          if (response.destroyed) return
        }
        return answerVisionContent(model, body as Parameters<typeof answerVisionContent>[1], response, state)
      }
      const parts = body.contents?.flatMap((content) => content.parts ?? []) ?? []
      state.requests.push({
        model,
        apiKey: typeof apiKeyHeader === 'string' ? apiKeyHeader : undefined,
        prompt: parts.flatMap((part) => (part.text === undefined ? [] : [part.text])).join('\n'),
        images: parts.flatMap((part) => {
          const inline = part.inline_data
            ? { mimeType: part.inline_data.mime_type, data: part.inline_data.data }
            : part.inlineData
          return inline ? [{ mimeType: inline.mimeType, bytes: Buffer.from(inline.data, 'base64') }] : []
        }),
        generationConfig: body.generationConfig,
      })

      if (apiKeyHeader !== state.apiKey) return sendApiKeyInvalid(response)
      if (!GEMINI_IMAGE_MODELS.includes(model)) return sendModelNotFound(response, model, 'generateContent')
      const images = state.requests.at(-1)?.images.length ?? 0
      if (images > GEMINI_MAX_INPUT_IMAGES) {
        return sendGoogleError(
          response,
          400,
          `Too many input images: ${images}. ${model} accepts at most ${GEMINI_MAX_INPUT_IMAGES} images per request.`,
          'INVALID_ARGUMENT',
        )
      }
      const config = imageConfigSchema.safeParse(
        (body.generationConfig as { imageConfig?: unknown } | undefined)?.imageConfig,
      )
      const problem = config.success ? imageConfigProblem(config.data) : 'Invalid imageConfig.'
      if (problem) return sendGoogleError(response, 400, problem, 'INVALID_ARGUMENT')
      if (!state.admit()) return sendResourceExhausted(response, model, { perDay: false })

      const edge = config.data?.imageSize ? IMAGE_SIZES[config.data.imageSize] : 1024
      const square = (config.data?.aspectRatio ?? '1:1') === '1:1'
      const image =
        square && edge > 1024
          ? await sharp({ create: { width: edge, height: edge, channels: 3, background: '#5a87c8' } })
              .png()
              .toBuffer()
          : state.resultPng
      const data = image.toString('base64')
      switch (state.mode) {
        case 'rate_limit_once':
          state.mode = 'success'
          return sendResourceExhausted(response, model, { perDay: false, retryDelaySeconds: 1 })
        case 'quota_exhausted_daily':
          return sendResourceExhausted(response, model, { perDay: true })
        case 'prepay_depleted':
          return sendGoogleError(response, 402, 'Your prepayment credits are depleted.', 'RESOURCE_EXHAUSTED')
        case 'billing_required':
          return sendGoogleError(
            response,
            400,
            'Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio.',
            'FAILED_PRECONDITION',
          )
        case 'server_error':
          return sendGoogleError(response, 500, 'An internal error has occurred.', 'INTERNAL')
        case 'unavailable':
          return sendGoogleError(response, 503, 'The model is overloaded. Please try again later.', 'UNAVAILABLE')
        case 'hang':
          return waitUnlessClosed(response, 10 * 60_000)
        case 'forbidden':
          return sendGoogleError(
            response,
            403,
            'Your API key was reported as leaked. Please use another API key.',
            'PERMISSION_DENIED',
          )
        case 'blocked_prompt':
          return sendJson(response, 200, { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, modelVersion: model })
        case 'image_safety':
          return sendJson(response, 200, {
            candidates: [{ finishReason: 'IMAGE_SAFETY', index: 0 }],
            modelVersion: model,
          })
        case 'text_only':
          return sendJson(response, 200, answer([{ text: 'Could you tell me more about the scene you want?' }], model))
        case 'malformed':
          return sendJson(response, 200, { candidates: [{ content: { parts: 'not a list' } }] })
        case 'success_snake_case':
          return sendJson(response, 200, answer([{ inline_data: { mime_type: 'image/png', data } }], model))
        case 'slow':
          await waitUnlessClosed(response, options.slowMs ?? 5_000)
          if (response.destroyed) return
          break
        case 'success':
          break
      }
      if (options.latencyMs) {
        await waitUnlessClosed(response, options.latencyMs)
        if (response.destroyed) return
      }
      // Past `imageBudget`: the image is stopped by the safety filter (a final refusal for that call).
      if (state.takeImages(1) === 0) {
        return sendJson(response, 200, {
          candidates: [{ finishReason: 'IMAGE_SAFETY', index: 0 }],
          modelVersion: model,
        })
      }
      sendJson(
        response,
        200,
        answer([{ text: 'Here is your portrait.' }, { inlineData: { mimeType: 'image/png', data } }], model),
      )
    },
  })
}

function answer(parts: WirePart[], model: string) {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1290, candidatesTokenCount: 1290, totalTokenCount: 2580 },
    modelVersion: model,
  }
}
