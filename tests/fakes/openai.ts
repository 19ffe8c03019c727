/**
 * A local stand-in for OpenAI's Images edit endpoint (POST /v1/images/edits), speaking its wire
 * format: multipart in, `{ data: [{ b64_json }] }` or `{ error: { message, type, code } }` out.
 * Point OPENAI_BASE_URL at `fake.baseUrl`.
 */
import { sendJson, waitUnlessClosed } from './http-fake.ts'
import { startImageApiFake } from './image-api-fake.ts'
import type { ImageApiFake, ImageApiFakeOptions } from './image-api-fake.ts'

export type OpenAiFakeMode =
  | 'success'
  /** 429 for the next request, then success. */
  | 'rate_limit_once'
  | 'server_error'
  | 'moderation'
  /** 200 whose body lacks the image. */
  | 'malformed'
  /** Success after `slowMs`. */
  | 'slow'

export interface RecordedImagePart {
  field: string
  filename: string
  type: string
  bytes: Buffer
}

export interface RecordedOpenAiRequest {
  authorization: string | undefined
  model: string | null
  prompt: string | null
  n: string | null
  size: string | null
  images: RecordedImagePart[]
}

/** `baseUrl` is the value for OPENAI_BASE_URL (ends in /v1). */
export type OpenAiFake = ImageApiFake<OpenAiFakeMode, RecordedOpenAiRequest>

export function startOpenAiFake(options: ImageApiFakeOptions = {}): Promise<OpenAiFake> {
  return startImageApiFake<OpenAiFakeMode, RecordedOpenAiRequest>(options, {
    defaultApiKey: 'sk-test-openai-fake-key',
    colour: '#c8875a',
    basePath: '/v1',
    async handle(request, response, state) {
      if (request.method !== 'POST' || request.path !== '/v1/images/edits') {
        return sendJson(
          response,
          404,
          apiError(`Invalid URL (${request.method} ${request.path})`, 'invalid_request_error'),
        )
      }
      const form = await new Request('http://fake/', {
        method: 'POST',
        headers: { 'content-type': request.headers['content-type'] ?? '' },
        body: new Uint8Array(request.body),
      }).formData()
      const images = await Promise.all(
        [...form.entries()]
          .filter((entry): entry is [string, File] => entry[1] instanceof File)
          .map(async ([field, file]) => ({
            field,
            filename: file.name,
            type: file.type,
            bytes: Buffer.from(await file.arrayBuffer()),
          })),
      )
      const text = (name: string) => {
        const value = form.get(name)
        return typeof value === 'string' ? value : null
      }
      state.requests.push({
        authorization: request.headers.authorization,
        model: text('model'),
        prompt: text('prompt'),
        n: text('n'),
        size: text('size'),
        images,
      })

      if (request.headers.authorization !== `Bearer ${state.apiKey}`) {
        return sendJson(
          response,
          401,
          apiError(
            'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
            'invalid_request_error',
            'invalid_api_key',
          ),
        )
      }
      if (!text('prompt') || images.length === 0) {
        return sendJson(
          response,
          400,
          apiError(
            "Missing required parameter: 'image' or 'prompt'.",
            'invalid_request_error',
            'missing_required_parameter',
          ),
        )
      }

      switch (state.mode) {
        case 'rate_limit_once':
          state.mode = 'success'
          return sendJson(
            response,
            429,
            apiError('Rate limit reached for gpt-image-1 on images per minute.', 'requests', 'rate_limit_exceeded'),
          )
        case 'server_error':
          return sendJson(
            response,
            500,
            apiError('The server had an error while processing your request.', 'server_error', null),
          )
        case 'moderation':
          return sendJson(
            response,
            400,
            apiError(
              'Your request was rejected by the safety system. safety_violations=[violence].',
              'image_generation_user_error',
              'moderation_blocked',
            ),
          )
        case 'malformed':
          return sendJson(response, 200, { created: now(), data: [{ url: null }] })
        case 'slow':
          await waitUnlessClosed(response, options.slowMs ?? 5_000)
          if (response.destroyed) return
          break
        case 'success':
          break
      }
      sendJson(response, 200, { created: now(), data: [{ b64_json: state.resultPng.toString('base64') }] })
    },
  })
}

function apiError(message: string, type: string, code: string | null = null) {
  return { error: { message, type, param: null, code } }
}

function now(): number {
  return Math.floor(Date.now() / 1000)
}
