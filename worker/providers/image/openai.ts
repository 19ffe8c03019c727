/**
 * OpenAI Images "edit" API (GPT Image models): the pet photo and any reference images go up as
 * repeated `image[]` multipart parts with the prompt; the answer carries the results as base64.
 * Several versions are one call with `n` (the API takes 1 to 10), so one request however many.
 * HD asks for the largest square gpt-image-2 makes: sizes are free-form within its documented
 * limits (both edges multiples of 16, the long edge at most 3840 px, at most 3:1, and 655 360 to
 * 8 294 400 pixels), and the pixel cap makes 2880x2880 (2880 = 180 × 16, 2880² = 8 294 400) the
 * largest square.
 */
import { z } from 'zod'
import { errorForAnswer, refusalError } from '../http.ts'
import type { HttpCallOptions } from '../http.ts'
import type { JsonAnswer } from '../types.ts'
import { ProviderError } from '../types.ts'
import { versionsOf, type ImageProvider, type ImageRequest } from '../types.ts'
import { imageFromBase64 } from './image-bytes.ts'
import { postImageCall } from './image-call.ts'
import { OPENAI_MAX_IMAGES } from '#domain/generation/provider-image-limits.ts'

export interface OpenAiImageConfig {
  apiKey: string
  /** Default https://api.openai.com/v1 */
  baseUrl?: string
  /** Default gpt-image-2 */
  model?: string
  /** Default 300 000 ms; image edits commonly take 20-120 s, longer under load. */
  timeoutMs?: number
  /** No response headers within this long is a stall (default: timeoutMs). */
  stallMs?: number
  /** Default 1024x1024 */
  size?: string
}

const SERVICE = 'OpenAI'
/** The largest square the GPT Image models make (see above). */
const OPENAI_HD_EDGE = 2880

const answerSchema = z.object({ data: z.array(z.object({ b64_json: z.string().min(1) })).min(1) })

const errorBodySchema = z.object({
  error: z.object({ type: z.string().nullish(), code: z.string().nullish(), message: z.string().nullish() }),
})

export function createOpenAiImageProvider(config: OpenAiImageConfig): ImageProvider {
  const endpoint = `${(config.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '')}/images/edits`
  const model = config.model ?? 'gpt-image-2'
  const size = config.size ?? '1024x1024'

  return {
    name: 'openai',
    requestPerVersion: false,
    hdLongEdge: OPENAI_HD_EDGE,
    model,
    async generate(request, context) {
      const { answer, http } = await postImageCall(request, context, config, {
        service: SERVICE,
        maxImages: OPENAI_MAX_IMAGES,
        endpoint,
        headers: { authorization: `Bearer ${config.apiKey}` },
        body: () => editForm(request, model, request.quality === 'hd' ? `${OPENAI_HD_EDGE}x${OPENAI_HD_EDGE}` : size),
      })
      if (!answer.ok) throw answerError(answer, http)

      const parsed = answerSchema.safeParse(answer.body)
      const images = parsed.success ? parsed.data.data.flatMap((item) => imageFromBase64(item.b64_json) ?? []) : []
      if (images.length === 0) {
        // Final: the call was billed, and repeating it is unlikely to change the answer's shape.
        throw new ProviderError(`${SERVICE} answered without a usable image.`, {
          retryable: false,
          status: answer.status,
        })
      }
      await context.onProgress(100)
      const asked = versionsOf(request).length
      if (images.length >= asked) return { images: images.slice(0, asked) }
      const shortfall = new ProviderError(`${SERVICE} made ${images.length} of the ${asked} versions asked for.`, {
        retryable: false,
        status: answer.status,
      })
      return { images, shortfall }
    },
  }
}

function editForm(request: ImageRequest, model: string, size: string): FormData {
  const form = new FormData()
  form.append('model', model)
  form.append('prompt', request.prompt)
  form.append('n', String(versionsOf(request).length))
  form.append('size', size)
  request.images.forEach((image, index) => {
    const extension = image.mimeType.slice('image/'.length)
    const blob = new Blob([new Uint8Array(image.bytes)], { type: image.mimeType })
    form.append('image[]', blob, `image-${index + 1}.${extension}`)
  })
  return form
}

function answerError(answer: JsonAnswer, http: HttpCallOptions): ProviderError {
  const parsed = errorBodySchema.safeParse(answer.body)
  if (answer.status === 400 && parsed.success && isSafetyRefusal(parsed.data.error)) {
    return refusalError(SERVICE, 'image', answer.status)
  }
  if (parsed.success && parsed.data.error.code === 'billing_hard_limit_reached') {
    return new ProviderError(`${SERVICE} cannot take more requests: this server's billing limit is reached.`, {
      retryable: false,
      status: answer.status,
      quotaExhausted: true,
    })
  }
  return errorForAnswer(answer, http)
}

/** gpt-image answers `moderation_blocked`; older models used `content_policy_violation`. */
function isSafetyRefusal(error: z.infer<typeof errorBodySchema>['error']): boolean {
  const codes = ['moderation_blocked', 'content_policy_violation']
  return (
    codes.includes(error.code ?? '') ||
    codes.includes(error.type ?? '') ||
    /safety system|content policy/i.test(error.message ?? '')
  )
}
