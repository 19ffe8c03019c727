/**
 * A local stand-in for OpenAI's Images edit endpoint (POST /v1/images/edits), Chat Completions with
 * image input and Structured Outputs (POST /v1/chat/completions, the photo check: openai-vision.ts),
 * moderation (POST /v1/moderations: openai-moderation.ts) and model lookup (GET /v1/models/{model}), speaking their wire format as OpenAI's API reference and error-code
 * guide describe it: multipart in, `{ data: [{ b64_json }] }` or `{ error: { message, type, param,
 * code } }` out. Like the real API it checks the key first (401 invalid_api_key), refuses a model
 * that does not exist (404 model_not_found, which is what a retired model answers) and a size the
 * model does not make (gpt-image-2: any WxH with both edges multiples of 16, the long edge at most
 * 3840, at most 3:1, 655 360 to 8 294 400 pixels; the older models: their three sizes), answers an
 * image of the size asked for (the 1024 px standard size and `auto` get the small sample PNG), more input images than they take (16), and an `n` outside 1-10 (the
 * API reference: "The number of images to generate. Must be between 1 and 10."); it answers `n`
 * images, and marks a rate limit with `retry-after` and x-ratelimit headers. Past `imageBudget` it
 * answers fewer images than asked for.
 * Point OPENAI_BASE_URL at `fake.baseUrl`.
 */
import type { ServerResponse } from 'node:http'
import sharp from 'sharp'
import { sendJson, waitUnlessClosed } from './http-fake.ts'
import { startImageApiFake } from './image-api-fake.ts'
import { answerChatCompletion } from './openai-vision.ts'
import { createModerationFake, type ModerationFake } from './openai-moderation.ts'
import type { ImageApiFake, ImageApiFakeOptions } from './image-api-fake.ts'

export type OpenAiFakeMode =
  | 'success'
  /** 429 rate_limit_exceeded (retry-after: 1) for the next request, then success. */
  | 'rate_limit_once'
  /** 429 insufficient_quota: the account's credit is used up (until someone pays). */
  | 'insufficient_quota'
  | 'server_error'
  /** 503 "The engine is currently overloaded", OpenAI's answer under load. */
  | 'unavailable'
  /** Accepts the request and never answers (not even headers), until the client hangs up. */
  | 'hang'
  /** 403 unsupported_country_region_territory: this account may not use the API from here. */
  | 'forbidden'
  /** 400 billing_hard_limit_reached: the organisation's monthly budget is spent. */
  | 'billing_limit'
  | 'moderation'
  /** 400 content_policy_violation, the refusal of older image models. */
  | 'content_policy'
  /** 200 whose body lacks the image. */
  | 'malformed'
  /** Success after `slowMs`. */
  | 'slow'
  /** Success, but with the standard image whatever size was asked for (a model that ignores it). */
  | 'ignores_size'
  /** The 200 headers at once, the body after `slowMs`: an answer that has started. */
  | 'slow_body'

/** The current GPT Image models (gpt-image-1 was shut down on 2026-10-23). */
const OPENAI_IMAGE_MODELS = ['gpt-image-2', 'gpt-image-1.5', 'gpt-image-1-mini']
/** "You can provide up to 16 images" (GPT Image models; the Images API reference, `image`). */
export const OPENAI_MAX_EDIT_IMAGES = 16
/** The sizes gpt-image-1.5 and gpt-image-1-mini make; gpt-image-2 takes any size within gptImage2SizeProblem's limits. */
const FIXED_SIZES = ['1024x1024', '1536x1024', '1024x1536', 'auto']

/** Why gpt-image-2 refuses a size (the image generation guide's limits), or null when it makes it. */
function gptImage2SizeProblem(size: string): string | null {
  if (size === 'auto') return null
  const match = /^(\d+)x(\d+)$/.exec(size)
  if (!match) return `Invalid size '${size}'. Expected 'auto' or WIDTHxHEIGHT.`
  const [width, height] = [Number(match[1]), Number(match[2])]
  const [short, long] = [Math.min(width, height), Math.max(width, height)]
  if (width % 16 !== 0 || height % 16 !== 0) return `Invalid size '${size}'. Both edges must be multiples of 16.`
  if (long > 3840) return `Invalid size '${size}'. The longest edge must be at most 3840 pixels.`
  if (long > short * 3) return `Invalid size '${size}'. The aspect ratio must be at most 3:1.`
  const pixels = width * height
  if (pixels < 655_360 || pixels > 8_294_400) {
    return `Invalid size '${size}'. The image must have between 655360 and 8294400 pixels.`
  }
  return null
}

function sizeProblem(model: string, size: string): string | null {
  if (model === 'gpt-image-2') return gptImage2SizeProblem(size)
  return FIXED_SIZES.includes(size)
    ? null
    : `Invalid value: '${size}'. Supported values are: ${FIXED_SIZES.map((s) => `'${s}'`).join(', ')}.`
}

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

/** `baseUrl` is the value for OPENAI_BASE_URL (ends in /v1); `moderation` sets what the moderation endpoint flags. */
export type OpenAiFake = ImageApiFake<OpenAiFakeMode, RecordedOpenAiRequest> & { moderation: ModerationFake }

export async function startOpenAiFake(options: ImageApiFakeOptions = {}): Promise<OpenAiFake> {
  const moderation = createModerationFake()
  const fake = await startImageApiFake<OpenAiFakeMode, RecordedOpenAiRequest>(options, {
    defaultApiKey: 'sk-test-openai-fake-key',
    colour: '#c8875a',
    basePath: '/v1',
    async handle(request, response, state) {
      const authorized = request.headers.authorization === `Bearer ${state.apiKey}`
      const lookup = /^\/v1\/models\/([^/]+)$/.exec(request.path)
      if (request.method === 'GET' && lookup) {
        if (!authorized) return invalidKey(response)
        const model = decodeURIComponent(lookup[1])
        if (!OPENAI_IMAGE_MODELS.includes(model)) return modelNotFound(response, model)
        return sendJson(response, 200, { id: model, object: 'model', created: 1_767_225_600, owned_by: 'system' })
      }
      if (request.method === 'POST' && request.path === '/v1/chat/completions') {
        if (!authorized) return invalidKey(response)
        let body: unknown
        try {
          body = JSON.parse(request.body.toString('utf8'))
        } catch {
          return sendJson(
            response,
            400,
            apiError('We could not parse the JSON body of your request.', 'invalid_request_error'),
          )
        }
        const fail = (status: number, message: string, type: string, code: string | null, param: string | null) =>
          sendJson(response, status, apiError(message, type, code, param))
        if (state.mode === 'server_error') {
          return fail(500, 'The server had an error while processing your request.', 'server_error', null, null)
        }
        if (state.mode === 'slow') {
          await waitUnlessClosed(response, state.options.slowMs ?? 5_000)
          if (response.destroyed) return
        }
        return answerChatCompletion(body, response, state, fail)
      }
      if (request.method === 'POST' && request.path === '/v1/moderations') {
        if (!authorized) return invalidKey(response)
        let body: unknown
        try {
          body = JSON.parse(request.body.toString('utf8'))
        } catch {
          return sendJson(
            response,
            400,
            apiError('We could not parse the JSON body of your request.', 'invalid_request_error'),
          )
        }
        return moderation.answer(body, response, (status, message, type, code, param) =>
          sendJson(response, status, apiError(message, type, code, param)),
        )
      }
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
      const model = text('model')
      state.requests.push({
        authorization: request.headers.authorization,
        model,
        prompt: text('prompt'),
        n: text('n'),
        size: text('size'),
        images,
      })

      if (!authorized) return invalidKey(response)
      if (!model || !OPENAI_IMAGE_MODELS.includes(model)) return modelNotFound(response, model ?? '')
      if (!text('prompt') || images.length === 0) {
        return sendJson(
          response,
          400,
          apiError(
            "Missing required parameter: 'image' or 'prompt'.",
            'invalid_request_error',
            'missing_required_parameter',
            'image',
          ),
        )
      }
      if (images.length > OPENAI_MAX_EDIT_IMAGES) {
        return sendJson(
          response,
          400,
          apiError(
            `Invalid 'image': array too long. Expected an array with maximum length ${OPENAI_MAX_EDIT_IMAGES}, but got an array with length ${images.length} instead.`,
            'invalid_request_error',
            'array_above_max_length',
            'image',
          ),
        )
      }
      const size = text('size')
      const problem = size === null ? null : sizeProblem(model, size)
      if (problem) return sendJson(response, 400, apiError(problem, 'invalid_request_error', 'invalid_value', 'size'))
      const n = text('n') === null ? 1 : Number(text('n'))
      if (!Number.isInteger(n) || n < 1 || n > 10) {
        const problem = !Number.isInteger(n)
          ? `Invalid type for 'n': expected an integer, but got a string instead.`
          : n < 1
            ? `Invalid 'n': integer below minimum value. Expected a value >= 1, but got ${n} instead.`
            : `Invalid 'n': integer above maximum value. Expected a value <= 10, but got ${n} instead.`
        return sendJson(response, 400, apiError(problem, 'invalid_request_error', 'invalid_value', 'n'))
      }
      if (!state.admit()) {
        return rateLimited(response, model, 'requests per min (RPM)', {
          limit: state.options.rpm,
          resetMs: state.roomInMs(),
        })
      }

      switch (state.mode) {
        case 'rate_limit_once':
          state.mode = 'success'
          return rateLimited(response, model, 'images per minute')
        case 'insufficient_quota':
          return sendJson(
            response,
            429,
            apiError(
              'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
              'insufficient_quota',
              'insufficient_quota',
            ),
          )
        case 'server_error':
          return sendJson(
            response,
            500,
            apiError('The server had an error while processing your request.', 'server_error', null),
          )
        case 'unavailable':
          return sendJson(
            response,
            503,
            apiError('The engine is currently overloaded, please try again later.', 'server_error', null),
          )
        case 'hang':
          return waitUnlessClosed(response, 10 * 60_000)
        case 'forbidden':
          return sendJson(
            response,
            403,
            apiError(
              'Country, region, or territory not supported',
              'request_forbidden',
              'unsupported_country_region_territory',
            ),
          )
        case 'billing_limit':
          return sendJson(
            response,
            400,
            apiError('Billing hard limit has been reached', 'invalid_request_error', 'billing_hard_limit_reached'),
          )
        case 'content_policy':
          return sendJson(
            response,
            400,
            apiError(
              'Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.',
              'invalid_request_error',
              'content_policy_violation',
            ),
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
          await waitUnlessClosed(response, state.options.slowMs ?? 5_000)
          if (response.destroyed) return
          break
        case 'slow_body': {
          response.writeHead(200, { 'content-type': 'application/json' })
          response.flushHeaders()
          await waitUnlessClosed(response, state.options.slowMs ?? 5_000)
          if (response.destroyed) return
          response.end(JSON.stringify({ created: now(), data: [{ b64_json: state.resultPng.toString('base64') }] }))
          return
        }
        case 'success':
        case 'ignores_size':
          break
      }
      if (state.options.latencyMs) {
        await waitUnlessClosed(response, state.options.latencyMs)
        if (response.destroyed) return
      }
      const sized = state.mode === 'ignores_size' ? null : /^(\d+)x(\d+)$/.exec(size ?? '')
      const image = sized && size !== '1024x1024' ? await sizedPng(Number(sized[1]), Number(sized[2])) : state.resultPng
      const b64_json = image.toString('base64')
      const data = Array.from({ length: state.takeImages(n) }, () => ({ b64_json }))
      sendJson(response, 200, { created: now(), data })
    },
  })
  return Object.assign(fake, { moderation: moderation.controls })
}

/** An image of the size asked for, in the fake's colour. */
function sizedPng(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#c8875a' } })
    .png()
    .toBuffer()
}

function invalidKey(response: ServerResponse) {
  sendJson(
    response,
    401,
    apiError(
      'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
      'invalid_request_error',
      'invalid_api_key',
    ),
  )
}

function modelNotFound(response: ServerResponse, model: string) {
  sendJson(
    response,
    404,
    apiError(
      `The model '${model}' does not exist or you do not have access to it.`,
      'invalid_request_error',
      'model_not_found',
    ),
  )
}

/**
 * OpenAI's rate-limit answer: 429 rate_limit_exceeded, with when to try again in the headers
 * (`retry-after` in whole seconds; the x-ratelimit ones with the limit, and the time until a request
 * leaves the window, as "250ms", "1.5s" or "1m0s"). Without a `limit`, a one-off busy moment of 1 s.
 */
function rateLimited(
  response: ServerResponse,
  model: string,
  what: string,
  { limit, resetMs }: { limit?: number; resetMs: number } = { resetMs: 1_000 },
) {
  const reset = duration(resetMs)
  const text = JSON.stringify(
    apiError(
      `Rate limit reached for ${model} in organization org-fake on ${what}: Please try again in ${reset}.`,
      'requests',
      'rate_limit_exceeded',
    ),
  )
  response.writeHead(429, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'retry-after': String(Math.max(1, Math.ceil(resetMs / 1_000))),
    ...(limit === undefined ? {} : { 'x-ratelimit-limit-requests': String(limit) }),
    'x-ratelimit-remaining-requests': '0',
    'x-ratelimit-reset-requests': reset,
  })
  response.end(text)
}

function duration(ms: number) {
  if (ms < 1_000) return `${Math.ceil(ms)}ms`
  const seconds = Math.round(ms) / 1_000
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${Math.round((seconds % 60) * 1000) / 1000}s`
}

function apiError(message: string, type: string, code: string | null = null, param: string | null = null) {
  return { error: { message, type, param, code } }
}

function now(): number {
  return Math.floor(Date.now() / 1000)
}
