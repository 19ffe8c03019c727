/**
 * The OpenAI fake's moderation endpoint (POST /v1/moderations), as OpenAI's API reference and the
 * official SDK's types (openai-node src/resources/moderations.ts) describe it: `{ model?, input }`
 * where input is a string, an array of strings, or an array of multi-modal parts `{ type: 'text',
 * text }` / `{ type: 'image_url', image_url: { url } }` (a data URL or an https URL; only the
 * omni-moderation models read images). The answer is `{ id, model, results: [{ flagged,
 * categories, category_scores, category_applied_input_types }] }`: one result per string, one for
 * a multi-modal array. Images are scored only for the categories the docs list as image-capable.
 * What is flagged is the test's choice (`flag`); `fail` makes the endpoint answer 500, 429 or
 * stall instead.
 */
import type { ServerResponse } from 'node:http'
import { sendJson, waitUnlessClosed } from './http-fake.ts'

const MODELS = [
  'omni-moderation-latest',
  'omni-moderation-2024-09-26',
  'text-moderation-latest',
  'text-moderation-stable',
]
const RESOLVED: Record<string, string> = {
  'omni-moderation-latest': 'omni-moderation-2024-09-26',
  'text-moderation-latest': 'text-moderation-007',
  'text-moderation-stable': 'text-moderation-007',
}

/** Every category, and the input types it is scored on (the SDK's CategoryAppliedInputTypes). */
const CATEGORIES: Record<string, ('text' | 'image')[]> = {
  harassment: ['text'],
  'harassment/threatening': ['text'],
  hate: ['text'],
  'hate/threatening': ['text'],
  illicit: ['text'],
  'illicit/violent': ['text'],
  'self-harm': ['text', 'image'],
  'self-harm/instructions': ['text', 'image'],
  'self-harm/intent': ['text', 'image'],
  sexual: ['text', 'image'],
  'sexual/minors': ['text'],
  violence: ['text', 'image'],
  'violence/graphic': ['text', 'image'],
}

export type ModerationFailure = 'none' | 'server_error' | 'rate_limited' | 'hang'

export interface RecordedModeration {
  model: string | undefined
  texts: string[]
  images: { mimeType: string; bytes: Buffer }[]
}

export interface ModerationFake {
  requests: RecordedModeration[]
  /**
   * The categories flagged from now on: for text inputs, and for image inputs (image-capable ones
   * only count); with `matching`, only text inputs containing it are flagged.
   */
  flag(categories: { text?: string[]; image?: string[]; matching?: string }): void
  /** The endpoint answers 500, 429, or nothing at all, until set back to 'none'. */
  fail(failure: ModerationFailure): void
}

type Fail = (status: number, message: string, type: string, code: string | null, param: string | null) => void

export function createModerationFake() {
  const flagged = { text: [] as string[], image: [] as string[], matching: undefined as string | undefined }
  let failure: ModerationFailure = 'none'
  const requests: RecordedModeration[] = []

  const controls: ModerationFake = {
    requests,
    flag({ text = [], image = [], matching }) {
      const unknown = [...text, ...image].find((category) => !(category in CATEGORIES))
      if (unknown) throw new Error(`the moderation fake knows no category ${unknown}`)
      flagged.text = text
      flagged.image = image
      flagged.matching = matching
    },
    fail(next) {
      failure = next
    },
  }

  async function answer(body: unknown, response: ServerResponse, fail: Fail) {
    if (failure === 'hang') {
      await waitUnlessClosed(response, 60_000)
      return
    }
    if (failure === 'server_error') {
      return fail(500, 'The server had an error while processing your request.', 'server_error', null, null)
    }
    if (failure === 'rate_limited') {
      return fail(
        429,
        'Rate limit reached for omni-moderation-latest on requests per min (RPM).',
        'requests',
        'rate_limit_exceeded',
        null,
      )
    }
    const request = (body ?? {}) as { model?: unknown; input?: unknown }
    const model = request.model === undefined ? 'omni-moderation-latest' : request.model
    if (typeof model !== 'string' || !MODELS.includes(model)) {
      return fail(
        404,
        `The model '${String(model)}' does not exist or you do not have access to it.`,
        'invalid_request_error',
        'model_not_found',
        null,
      )
    }
    if (request.input === undefined) {
      return fail(
        400,
        "Missing required parameter: 'input'.",
        'invalid_request_error',
        'missing_required_parameter',
        'input',
      )
    }
    // One result per string, one for a multi-modal array.
    const inputs: RecordedModeration[] = []
    if (typeof request.input === 'string') inputs.push({ model, texts: [request.input], images: [] })
    else if (Array.isArray(request.input) && request.input.every((item) => typeof item === 'string')) {
      for (const text of request.input as string[]) inputs.push({ model, texts: [text], images: [] })
    } else if (Array.isArray(request.input) && request.input.length > 0) {
      const parts: RecordedModeration = { model, texts: [], images: [] }
      for (const [index, part] of (
        request.input as { type?: unknown; text?: unknown; image_url?: unknown }[]
      ).entries()) {
        const where = `input[${index}]`
        if (part?.type === 'text' && typeof part.text === 'string') {
          parts.texts.push(part.text)
        } else if (part?.type === 'image_url') {
          if (!model.startsWith('omni-')) {
            return fail(
              400,
              `Model '${model}' does not support image inputs.`,
              'invalid_request_error',
              'invalid_value',
              `${where}.type`,
            )
          }
          const url = (part.image_url as { url?: unknown } | undefined)?.url
          const data =
            typeof url === 'string' ? /^data:(image\/(?:jpeg|png|webp|gif));base64,([A-Za-z0-9+/]+=*)$/.exec(url) : null
          if (!data && !(typeof url === 'string' && url.startsWith('https://'))) {
            return fail(
              400,
              `Invalid '${where}.image_url.url': expected an https URL or a base64-encoded data URL of an image.`,
              'invalid_request_error',
              'invalid_value',
              `${where}.image_url.url`,
            )
          }
          if (data) parts.images.push({ mimeType: data[1], bytes: Buffer.from(data[2], 'base64') })
        } else {
          return fail(
            400,
            `Invalid value: '${String(part?.type)}'. Supported values are: 'text' and 'image_url'.`,
            'invalid_request_error',
            'invalid_value',
            `${where}.type`,
          )
        }
      }
      inputs.push(parts)
    } else {
      return fail(
        400,
        "Invalid type for 'input': expected a string, an array of strings or an array of objects.",
        'invalid_request_error',
        'invalid_type',
        'input',
      )
    }
    requests.push(...inputs)
    sendJson(response, 200, {
      id: `modr-fake${requests.length}`,
      model: RESOLVED[model] ?? model,
      results: inputs.map(result),
    })
  }

  function result(input: RecordedModeration) {
    const textFlagged = !flagged.matching || input.texts.some((text) => text.includes(flagged.matching ?? ''))
    const types = [
      ...(input.texts.length > 0 ? ['text' as const] : []),
      ...(input.images.length > 0 ? ['image' as const] : []),
    ]
    const categories: Record<string, boolean> = {}
    const scores: Record<string, number> = {}
    const applied: Record<string, string[]> = {}
    for (const [category, scoredOn] of Object.entries(CATEGORIES)) {
      const scored = types.filter((type) => scoredOn.includes(type))
      applied[category] = scored
      const hit = scored.some((type) => (type === 'image' || textFlagged) && flagged[type].includes(category))
      categories[category] = hit
      scores[category] = hit ? 0.93 : 0.0004
    }
    return {
      flagged: Object.values(categories).some(Boolean),
      categories,
      category_scores: scores,
      category_applied_input_types: applied,
    }
  }

  return { controls, answer }
}
