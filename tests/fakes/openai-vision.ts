/**
 * The OpenAI fake's Chat Completions endpoint (POST /v1/chat/completions) for image input with
 * Structured Outputs, as OpenAI's API reference and Structured Outputs guide describe it: user
 * content parts `{ type: 'text', text }` and `{ type: 'image_url', image_url: { url, detail } }`
 * (a data URL or an https URL), `response_format: { type: 'json_schema', json_schema: { name,
 * strict, schema } }`; strict mode refuses a schema whose objects lack `additionalProperties:
 * false` or leave a property out of `required`. The answer is a chat.completion whose
 * `choices[0].message.content` is the JSON text (the answer the test set); without a
 * response_format the model answers in prose, as the real one would.
 */
import type { ServerResponse } from 'node:http'
import { sendJson } from './http-fake.ts'
import type { ImageApiFakeState, RecordedVisionRequest } from './image-api-fake.ts'

/** Current OpenAI models that read images (gpt-5-nano is deprecated, shut down on 2026-12-11). */
const OPENAI_VISION_MODELS = ['gpt-6-luna', 'gpt-5.6-luna', 'gpt-5-nano']

type Fail = (status: number, message: string, type: string, code: string | null, param: string | null) => void

interface ContentPart {
  type?: unknown
  text?: unknown
  image_url?: unknown
}

export function answerChatCompletion<Mode extends string>(
  body: unknown,
  response: ServerResponse,
  state: ImageApiFakeState<Mode, unknown>,
  fail: Fail,
) {
  const request = (body ?? {}) as { model?: unknown; messages?: unknown; response_format?: unknown }
  if (typeof request.model !== 'string') {
    return fail(
      400,
      "Missing required parameter: 'model'.",
      'invalid_request_error',
      'missing_required_parameter',
      'model',
    )
  }
  if (!OPENAI_VISION_MODELS.includes(request.model)) {
    return fail(
      404,
      `The model '${request.model}' does not exist or you do not have access to it.`,
      'invalid_request_error',
      'model_not_found',
      null,
    )
  }
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    return fail(
      400,
      "Missing required parameter: 'messages'.",
      'invalid_request_error',
      'missing_required_parameter',
      'messages',
    )
  }
  const recorded: RecordedVisionRequest = { model: request.model, prompt: '', images: [], schema: undefined }
  const texts: string[] = []
  for (const [m, message] of (request.messages as { role?: unknown; content?: unknown }[]).entries()) {
    if (typeof message.content === 'string') {
      texts.push(message.content)
      continue
    }
    if (!Array.isArray(message.content)) {
      return fail(
        400,
        `Invalid type for 'messages[${m}].content'.`,
        'invalid_request_error',
        'invalid_type',
        `messages[${m}].content`,
      )
    }
    for (const [p, part] of (message.content as ContentPart[]).entries()) {
      const where = `messages[${m}].content[${p}]`
      if (part.type === 'text' && typeof part.text === 'string') {
        texts.push(part.text)
      } else if (part.type === 'image_url') {
        const image = part.image_url as { url?: unknown; detail?: unknown } | undefined
        if (typeof image !== 'object' || image === null || typeof image.url !== 'string') {
          return fail(
            400,
            `Invalid type for '${where}.image_url': expected an object with a 'url' string.`,
            'invalid_request_error',
            'invalid_type',
            `${where}.image_url`,
          )
        }
        if (image.detail !== undefined && !['auto', 'low', 'high'].includes(String(image.detail))) {
          return fail(
            400,
            `Invalid value: '${String(image.detail)}'. Supported values are: 'auto', 'low', and 'high'.`,
            'invalid_request_error',
            'invalid_value',
            `${where}.image_url.detail`,
          )
        }
        const data = /^data:(image\/(?:jpeg|png|webp|gif));base64,([A-Za-z0-9+/]+=*)$/.exec(image.url)
        if (!data && !/^https:\/\//.test(image.url)) {
          return fail(
            400,
            "Invalid 'image_url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got an unsupported value.",
            'invalid_request_error',
            'invalid_value',
            `${where}.image_url.url`,
          )
        }
        if (data) recorded.images.push({ mimeType: data[1], bytes: Buffer.from(data[2], 'base64') })
      } else {
        return fail(
          400,
          `Invalid value: '${String(part.type)}'. Supported values are: 'text', 'image_url', 'input_audio', and 'file'.`,
          'invalid_request_error',
          'invalid_value',
          `${where}.type`,
        )
      }
    }
  }
  recorded.prompt = texts.join('\n')

  const format = request.response_format as { type?: unknown; json_schema?: unknown } | undefined
  let structured = false
  if (format !== undefined) {
    if (format.type === 'json_schema') {
      const jsonSchema = format.json_schema as { name?: unknown; strict?: unknown; schema?: unknown } | undefined
      if (!jsonSchema || typeof jsonSchema.name !== 'string') {
        return fail(
          400,
          "Missing required parameter: 'response_format.json_schema.name'.",
          'invalid_request_error',
          'missing_required_parameter',
          'response_format.json_schema.name',
        )
      }
      if (!/^[a-zA-Z0-9_-]{1,64}$/.test(jsonSchema.name)) {
        return fail(
          400,
          `Invalid 'response_format.json_schema.name': string does not match pattern.`,
          'invalid_request_error',
          'invalid_value',
          'response_format.json_schema.name',
        )
      }
      const problem = jsonSchema.strict === true ? strictSchemaProblem(jsonSchema.schema, []) : undefined
      if (problem) {
        return fail(
          400,
          `Invalid schema for response_format '${jsonSchema.name}': ${problem}`,
          'invalid_request_error',
          null,
          'response_format',
        )
      }
      recorded.schema = jsonSchema.schema
      structured = true
    } else if (format.type !== 'text' && format.type !== 'json_object') {
      return fail(
        400,
        `Invalid value: '${String(format.type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
        'invalid_request_error',
        'invalid_value',
        'response_format.type',
      )
    }
  }
  state.visionRequests.push(recorded)
  const content = structured ? JSON.stringify(state.visionAnswer) : 'This looks like a photo of a pet sitting indoors.'
  sendJson(response, 200, {
    id: `chatcmpl-fake${state.visionRequests.length}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: `${request.model}-2026-09-22`,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 120, completion_tokens: 60, total_tokens: 180 },
    service_tier: 'default',
  })
}

/** What strict mode refuses in a schema: objects without additionalProperties false, or not every property required. */
function strictSchemaProblem(schema: unknown, context: string[]): string | undefined {
  if (typeof schema !== 'object' || schema === null)
    return `In context=(${contextText(context)}), schema must be a JSON Schema of 'type: "object"'.`
  const node = schema as {
    type?: unknown
    properties?: Record<string, unknown>
    required?: unknown
    additionalProperties?: unknown
    items?: unknown
  }
  if (node.type === 'object') {
    if (node.additionalProperties !== false) {
      return `In context=(${contextText(context)}), 'additionalProperties' is required to be supplied and to be false.`
    }
    const keys = Object.keys(node.properties ?? {})
    const required = Array.isArray(node.required) ? node.required : []
    const missing = keys.find((key) => !required.includes(key))
    if (missing) {
      return `In context=(${contextText(context)}), 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`
    }
    for (const key of keys) {
      const inner = strictSchemaProblem(node.properties?.[key], [...context, 'properties', key])
      if (inner) return inner
    }
  }
  if (node.type === 'array' && node.items !== undefined) return strictSchemaProblem(node.items, [...context, 'items'])
  return undefined
}

const contextText = (context: string[]) => context.map((part) => `'${part}'`).join(', ')
