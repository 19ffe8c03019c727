/**
 * The Gemini fake's generateContent for the text models that read images (the photo check), as
 * the Gemini API reference and its structured-output guide describe it: parts `{ text }` and
 * `{ inlineData: { mimeType, data } }` (or snake_case `inline_data`), `generationConfig` with
 * `responseMimeType: 'application/json'` and a `responseJsonSchema` (or the older OpenAPI-subset
 * `responseSchema`, not both). A schema without the JSON MIME type, an inline part without its
 * MIME type or base64 data, or an unsupported image type is refused with 400 INVALID_ARGUMENT. The
 * answer's `candidates[0].content.parts[0].text` is the JSON text the test set; without a JSON
 * MIME type the model answers in prose, as the real one would.
 */
import type { ServerResponse } from 'node:http'
import { sendGoogleError } from './google-errors.ts'
import { sendJson } from './http-fake.ts'
import type { ImageApiFakeState, RecordedVisionRequest } from './image-api-fake.ts'

/** The current Gemini text models that read images. */
export const GEMINI_VISION_MODELS = ['gemini-3.5-flash-lite', 'gemini-3.1-flash-lite', 'gemini-3.6-flash']

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif']

interface Part {
  text?: unknown
  inlineData?: { mimeType?: unknown; data?: unknown }
  inline_data?: { mime_type?: unknown; data?: unknown }
}

export function answerVisionContent<Mode extends string>(
  model: string,
  body: { contents?: { parts?: Part[] }[]; generationConfig?: unknown },
  response: ServerResponse,
  state: ImageApiFakeState<Mode, unknown>,
) {
  const invalid = (message: string) => sendGoogleError(response, 400, message, 'INVALID_ARGUMENT')
  const recorded: RecordedVisionRequest = { model, prompt: '', images: [], schema: undefined }
  const texts: string[] = []
  const contents = Array.isArray(body.contents) ? body.contents : []
  if (contents.length === 0) return invalid('* GenerateContentRequest.contents: contents is not specified')
  for (const [c, content] of contents.entries()) {
    if (!Array.isArray(content.parts))
      return invalid(`* GenerateContentRequest.contents[${c}].parts: contents.parts must not be empty.`)
    for (const [p, part] of content.parts.entries()) {
      const inline =
        part.inlineData ?? (part.inline_data && { mimeType: part.inline_data.mime_type, data: part.inline_data.data })
      if (typeof part.text === 'string') {
        texts.push(part.text)
      } else if (inline) {
        const where = `GenerateContentRequest.contents[${c}].parts[${p}].inline_data`
        if (typeof inline.mimeType !== 'string' || inline.mimeType === '')
          return invalid(`* ${where}.mime_type: mime_type is required`)
        if (typeof inline.data !== 'string' || !/^[A-Za-z0-9+/_-]+=*$/.test(inline.data)) {
          return invalid(
            `Invalid value at '${where.replace('GenerateContentRequest.', '')}.data' (TYPE_BYTES), Base64 decoding failed`,
          )
        }
        if (!IMAGE_TYPES.includes(inline.mimeType)) return invalid(`Unsupported MIME type: ${inline.mimeType}`)
        recorded.images.push({ mimeType: inline.mimeType, bytes: Buffer.from(inline.data, 'base64') })
      } else {
        return invalid(
          `* GenerateContentRequest.contents[${c}].parts[${p}].data: required oneof field 'data' must have one initialized field`,
        )
      }
    }
  }
  recorded.prompt = texts.join('\n')

  const config = (body.generationConfig ?? {}) as {
    responseMimeType?: unknown
    responseJsonSchema?: unknown
    responseSchema?: unknown
  }
  const schema = config.responseJsonSchema ?? config.responseSchema
  if (config.responseJsonSchema !== undefined && config.responseSchema !== undefined) {
    return invalid('responseSchema and responseJsonSchema cannot both be set.')
  }
  const json = config.responseMimeType === 'application/json'
  if (schema !== undefined && !json) {
    return invalid(
      "* GenerateContentRequest.generation_config.response_mime_type: response_mime_type must be 'application/json' when response_schema is set.",
    )
  }
  if (schema !== undefined && (typeof schema !== 'object' || schema === null || !('type' in schema))) {
    return invalid('* GenerateContentRequest.generation_config.response_schema: the schema must have a type')
  }
  recorded.schema = schema
  state.visionRequests.push(recorded)
  const text = json ? JSON.stringify(state.visionAnswer) : 'A pet sitting on the floor of a bright room.'
  sendJson(response, 200, {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 300, candidatesTokenCount: 60, totalTokenCount: 360 },
    modelVersion: model,
  })
}
