/**
 * Google Gemini image generation (generateContent with the IMAGE response modality): the prompt and
 * the images travel inline as base64 parts; the picture comes back as an inline-data part.
 * A blocked request is not an HTTP error here: it is a 200 without an image, explained by
 * `promptFeedback.blockReason` or the candidate's `finishReason`.
 * Image models take no `candidateCount`, so several versions are as many calls, made at once, each
 * a request of its own for the rate limit (requestPerVersion).
 * HD asks `generationConfig.imageConfig` for `imageSize: "4K"` (the largest of "1K", "2K", "4K"; the
 * K must be upper case) with `aspectRatio: "1:1"`: 4096x4096.
 */
import { z } from 'zod'
import { errorForAnswer, refusalError, shorten } from '../http.ts'
import { ProviderError } from '../types.ts'
import type { GeneratedMedia, ImageProvider, ImageRequest, ProviderContext } from '../types.ts'
import { imageFromBase64 } from './image-bytes.ts'
import { postImageCall } from './image-call.ts'
import { GEMINI_MAX_IMAGES } from '#domain/generation/provider-image-limits.ts'
import { makeEachVersion } from './versions.ts'

export interface GeminiImageConfig {
  apiKey: string
  /** Default https://generativelanguage.googleapis.com */
  baseUrl?: string
  /** Default gemini-3.1-flash-image */
  model?: string
  /** Default 300 000 ms. */
  timeoutMs?: number
  /** No response headers within this long is a stall (default: timeoutMs). */
  stallMs?: number
}

const SERVICE = 'Gemini'
/** The long edge of a 1:1 "4K" image (the image-generation guide's resolution table). */
const GEMINI_4K_SQUARE_EDGE = 4096

/** Finish reasons that mean the content rules stopped the image. */
const REFUSAL_FINISH_REASONS = new Set([
  'SAFETY',
  'IMAGE_SAFETY',
  'PROHIBITED_CONTENT',
  'IMAGE_PROHIBITED_CONTENT',
  'BLOCKLIST',
  'SPII',
  'RECITATION',
  'IMAGE_RECITATION',
])

// The REST API answers in camelCase; some proxies pass snake_case through, so accept both.
const inlineDataSchema = z.object({
  data: z.string(),
  mimeType: z.string().optional(),
  mime_type: z.string().optional(),
})

const answerSchema = z.object({
  candidates: z
    .array(
      z.object({
        content: z
          .object({
            parts: z
              .array(
                z.object({
                  text: z.string().optional(),
                  inlineData: inlineDataSchema.optional(),
                  inline_data: inlineDataSchema.optional(),
                }),
              )
              .default([]),
          })
          .optional(),
        finishReason: z.string().optional(),
      }),
    )
    .default([]),
  promptFeedback: z.object({ blockReason: z.string().optional() }).optional(),
})

type Answer = z.infer<typeof answerSchema>

export function createGeminiImageProvider(config: GeminiImageConfig): ImageProvider {
  const baseUrl = (config.baseUrl ?? 'https://generativelanguage.googleapis.com').replace(/\/+$/, '')
  const model = config.model ?? 'gemini-3.1-flash-image'
  const endpoint = `${baseUrl}/v1beta/models/${encodeURIComponent(model)}:generateContent`

  return {
    name: 'gemini',
    model,
    requestPerVersion: true,
    hdLongEdge: GEMINI_4K_SQUARE_EDGE,
    generate: (request, context) => makeEachVersion(request, () => generateOne(request, context)),
  }

  async function generateOne(request: ImageRequest, context: ProviderContext): Promise<GeneratedMedia> {
    const { answer, http } = await postImageCall(request, context, config, {
      service: SERVICE,
      maxImages: GEMINI_MAX_IMAGES,
      endpoint,
      headers: { 'x-goog-api-key': config.apiKey, 'content-type': 'application/json' },
      body: () => JSON.stringify(requestBody(request)),
    })
    if (!answer.ok) throw errorForAnswer(answer, http)

    const parsed = answerSchema.safeParse(answer.body)
    if (!parsed.success) {
      throw new ProviderError(`${SERVICE} returned an answer that could not be understood.`, {
        retryable: false,
        status: answer.status,
      })
    }
    const image = imageFromAnswer(parsed.data)
    await context.onProgress(100)
    return image
  }
}

function requestBody(request: ImageRequest) {
  return {
    contents: [
      {
        role: 'user',
        parts: [
          { text: request.prompt },
          ...request.images.map((image) => ({
            inline_data: { mime_type: image.mimeType, data: image.bytes.toString('base64') },
          })),
        ],
      },
    ],
    generationConfig: {
      responseModalities: ['TEXT', 'IMAGE'],
      ...(request.quality === 'hd' ? { imageConfig: { aspectRatio: '1:1', imageSize: '4K' } } : {}),
    },
  }
}

function imageFromAnswer(answer: Answer): GeneratedMedia {
  const parts = answer.candidates.flatMap((candidate) => candidate.content?.parts ?? [])
  const inline = parts.map((part) => part.inlineData ?? part.inline_data).find((data) => data !== undefined)
  if (inline) {
    const image = imageFromBase64(inline.data)
    if (image) return image
    throw new ProviderError(`${SERVICE} answered with image data that is not a picture.`, { retryable: false })
  }

  const refused =
    answer.promptFeedback?.blockReason !== undefined ||
    answer.candidates.some((candidate) => REFUSAL_FINISH_REASONS.has(candidate.finishReason ?? ''))
  if (refused) throw refusalError(SERVICE, 'image')

  // The model sometimes replies in words only (a question, an excuse): pass its words on.
  const said = parts
    .map((part) => part.text?.trim() ?? '')
    .filter(Boolean)
    .join(' ')
  if (said)
    throw new ProviderError(`${SERVICE} answered without an image: "${shorten(said, 200)}"`, { retryable: false })
  const reason = answer.candidates[0]?.finishReason
  throw new ProviderError(`${SERVICE} answered without an image${reason ? ` (finish reason ${reason})` : ''}.`, {
    retryable: false,
  })
}
