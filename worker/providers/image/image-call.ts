import { requestJson, type HttpCallOptions } from '../http.ts'
import type { ImageRequest, ProviderContext } from '../types.ts'
import { petPhoto } from './image-bytes.ts'

interface ImageCall {
  service: string
  endpoint: string
  apiKey: string
  timeoutMs: number
  headers: Record<string, string>
  /** Built once the request is known to carry a pet photo. */
  body: () => BodyInit
}

/**
 * How a remote image provider's call starts: the pet photo checked, 10 % reported, the request
 * posted. Answers the answer and the call's options, which reading its errors needs.
 */
export async function postImageCall(request: ImageRequest, context: ProviderContext, call: ImageCall) {
  petPhoto(request)
  const http: HttpCallOptions = {
    service: call.service,
    timeoutMs: call.timeoutMs,
    signal: context.signal,
    secrets: [call.apiKey],
  }
  await context.onProgress(10)
  const answer = await requestJson(call.endpoint, { method: 'POST', headers: call.headers, body: call.body() }, http)
  return { answer, http }
}
