/**
 * A local stand-in for Gemini's generateContent (POST /v1beta/models/{model}:generateContent),
 * speaking its wire format: JSON parts in, candidates with an inlineData image part out, refusals
 * as a 200 without an image, errors as `{ error: { code, message, status } }`.
 * Point GEMINI_BASE_URL at `fake.baseUrl`.
 */
import { sendJson, waitUnlessClosed } from './http-fake.ts'
import { startImageApiFake } from './image-api-fake.ts'
import type { ImageApiFake, ImageApiFakeOptions } from './image-api-fake.ts'

export type GeminiFakeMode =
  | 'success'
  /** The image part in snake_case (`inline_data`), as some proxies return it. */
  | 'success_snake_case'
  /** 429 for the next request, then success. */
  | 'rate_limit_once'
  | 'server_error'
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

const ROUTE = /^\/v1beta\/models\/([^/:]+):generateContent$/

export function startGeminiFake(options: ImageApiFakeOptions = {}): Promise<GeminiFake> {
  return startImageApiFake<GeminiFakeMode, RecordedGeminiRequest>(options, {
    defaultApiKey: 'test-gemini-fake-key',
    colour: '#5a87c8',
    async handle(request, response, state) {
      const model = ROUTE.exec(request.path)?.[1]
      if (request.method !== 'POST' || !model) {
        return sendJson(response, 404, googleError(404, `Method not found: ${request.path}`, 'NOT_FOUND'))
      }
      let body: { contents?: { parts?: WirePart[] }[]; generationConfig?: unknown }
      try {
        body = JSON.parse(request.body.toString('utf8'))
      } catch {
        return sendJson(response, 400, googleError(400, 'Invalid JSON payload received.', 'INVALID_ARGUMENT'))
      }
      const parts = body.contents?.flatMap((content) => content.parts ?? []) ?? []
      const apiKeyHeader = request.headers['x-goog-api-key']
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

      if (apiKeyHeader !== state.apiKey) {
        return sendJson(
          response,
          400,
          googleError(400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT'),
        )
      }

      const data = state.resultPng.toString('base64')
      switch (state.mode) {
        case 'rate_limit_once':
          state.mode = 'success'
          return sendJson(
            response,
            429,
            googleError(429, 'Resource has been exhausted (e.g. check quota).', 'RESOURCE_EXHAUSTED'),
          )
        case 'server_error':
          return sendJson(response, 500, googleError(500, 'An internal error has occurred.', 'INTERNAL'))
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

function googleError(code: number, message: string, status: string) {
  return { error: { code, message, status } }
}
