import { requestJson, type HttpCallOptions } from '../http.ts'
import type { ImageRequest, ProviderContext } from '../types.ts'
import { petPhoto, refuseOverImageLimit } from './image-bytes.ts'

/** The provider's key, how long one call may take (default 300 000 ms), and how long until no answer is a stall. */
interface CallConfig {
  apiKey: string
  timeoutMs?: number
  stallMs?: number
}

interface ImageCall {
  service: string
  endpoint: string
  headers: Record<string, string>
  /** Built once the request is known to carry a pet photo. */
  body: () => BodyInit
  /** The most input images the service takes (domain/generation/provider-image-limits.ts). */
  maxImages: number
}

/**
 * How a remote image provider's call starts: the pet photo and the image limit checked, 10 % reported, the request
 * posted. Answers the answer and the call's options, which reading its errors needs.
 */
export async function postImageCall(
  request: ImageRequest,
  context: ProviderContext,
  config: CallConfig,
  call: ImageCall,
) {
  petPhoto(request)
  refuseOverImageLimit(request, call.service, call.maxImages)
  const http: HttpCallOptions = {
    service: call.service,
    timeoutMs: config.timeoutMs ?? 300_000,
    signal: context.signal,
    secrets: [config.apiKey],
    stallMs: config.stallMs,
  }
  await context.onProgress(10)
  const answer = await requestJson(call.endpoint, { method: 'POST', headers: call.headers, body: call.body() }, http)
  return { answer, http }
}
