/**
 * HTTP plumbing shared by the remote providers (OpenAI, Gemini, and Veo for video):
 *
 * - `requestJson` / `requestBytes` send one request with a time limit that also covers reading the
 *   body, and turn timeouts, network failures and cancellation into retryable ProviderErrors;
 * - `errorForStatus` turns an unsuccessful HTTP status into a ProviderError (429, 408 and 5xx are
 *   retryable, other statuses are final) with a message a user can read;
 * - `errorForAnswer` does the same for a whole answer, reading a 429's wait (retry-after, Google's
 *   RetryInfo) and telling an exhausted quota from a busy moment (see busy-answers.ts);
 * - `apiErrorMessage` reads the `{ error: { message } }` body both OpenAI and Google APIs answer with;
 * - `refusalError` is the final error for a content-policy refusal;
 * - `redact` keeps API keys out of anything that might reach a user or a log.
 *
 * Provider-specific meaning (a content-policy refusal hidden in a 400, say) is decided by the
 * adapter before it falls back to `errorForStatus`.
 */
import { busyError } from './busy-answers.ts'
import { countProviderRequest } from './request-metrics.ts'
import { isRecord, type JsonAnswer, ProviderError } from './types.ts'
import { isNetworkFailure } from '#platform/network-errors.server.ts'

export interface HttpCallOptions {
  /** Human name of the remote service, used in error messages ("OpenAI"). */
  service: string
  timeoutMs: number
  /** The job's signal: aborted when the worker shuts down. */
  signal: AbortSignal
  /** Values that must never appear in an error message (API keys). */
  secrets: string[]
  /**
   * No response headers within this long is a stall (a ProviderError with `stalled`), so a chain
   * of providers can move on. Once headers came, only `timeoutMs` ends the call: an answer that has
   * started is never abandoned. Default (and at most): `timeoutMs`.
   */
  stallMs?: number
}

export interface BytesAnswer {
  status: number
  ok: boolean
  bytes: Buffer
  contentType: string
  /** The Location header of a redirect (requests made with redirect: 'manual'). */
  location: string | null
}

export function requestJson(url: string, init: RequestInit, options: HttpCallOptions): Promise<JsonAnswer> {
  return withTimeLimit(url, init, options, async (response) => {
    const text = await response.text()
    return { status: response.status, ok: response.ok, body: parseJson(text), text, headers: response.headers }
  })
}

export function requestBytes(url: string, init: RequestInit, options: HttpCallOptions): Promise<BytesAnswer> {
  return withTimeLimit(url, init, options, async (response) => ({
    status: response.status,
    ok: response.ok,
    bytes: Buffer.from(await response.arrayBuffer()),
    contentType: response.headers.get('content-type') ?? '',
    location: response.headers.get('location'),
  }))
}

/** 408, 429 and 5xx are worth retrying later; every other failure status is final. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500
}

/**
 * A ProviderError for an unsuccessful answer. `detail` is the service's own explanation (from its
 * error body), shown to the user only for final errors where it helps them fix the request.
 */
export function errorForStatus(status: number, detail: string, options: HttpCallOptions): ProviderError {
  const message = statusMessage(status, options.service, shorten(redact(detail, options.secrets)))
  return new ProviderError(message, {
    retryable: isRetryableStatus(status),
    status,
    credentialsRefused: status === 401 || status === 403,
  })
}

/** The ProviderError for an unsuccessful JSON answer; a 429 says how long to wait, or that the quota is gone. */
export function errorForAnswer(answer: JsonAnswer, options: HttpCallOptions): ProviderError {
  if (answer.status === 429) return busyError(answer, options.service)
  // Google answers a bad key with 400 INVALID_ARGUMENT, its ErrorInfo reason saying API_KEY_INVALID.
  if (answer.status === 400 && /"API_KEY_INVALID"/.test(answer.text)) {
    return new ProviderError(credentialsMessage(options.service, 'HTTP 400, API_KEY_INVALID'), {
      retryable: false,
      status: 400,
      credentialsRefused: true,
    })
  }
  if (isBillingRefusal(answer)) {
    return new ProviderError(
      `${options.service} cannot take more requests: this server's billing needs attention (HTTP ${answer.status}). An administrator has been told; your credits have been refunded.`,
      { retryable: false, status: answer.status, quotaExhausted: true },
    )
  }
  return errorForStatus(answer.status, apiErrorMessage(answer), options)
}

/**
 * An account that must pay before anything passes: 402 (Google: the Prepay credit is used up), or
 * Google's 400 FAILED_PRECONDITION (no free tier here and billing not enabled). Like a used-up quota.
 */
function isBillingRefusal(answer: JsonAnswer): boolean {
  if (answer.status === 402) return true
  const error = isRecord(answer.body) ? answer.body.error : undefined
  return answer.status === 400 && isRecord(error) && error.status === 'FAILED_PRECONDITION'
}

function credentialsMessage(service: string, why: string): string {
  return `${service} refused this server's credentials (${why}); an administrator must check the API key.`
}

function statusMessage(status: number, service: string, detail: string): string {
  if (status === 429) return `${service} is receiving too many requests right now (HTTP 429).`
  if (status >= 500) return `${service} is temporarily unavailable (HTTP ${status}).`
  if (status === 408) return `${service} timed out handling the request (HTTP 408).`
  if (status === 401 || status === 403) return credentialsMessage(service, `HTTP ${status}`)
  return `${service} rejected the request (HTTP ${status})${detail ? `: ${detail}` : '.'}`
}

/** The service's explanation from an `{ error: { message } }` body; '' when there is none. */
export function apiErrorMessage(answer: JsonAnswer): string {
  const error = isRecord(answer.body) ? answer.body.error : undefined
  return isRecord(error) && typeof error.message === 'string' ? error.message : ''
}

/** A content-policy refusal: final, and worded so the user knows what to change. */
export function refusalError(service: string, what: 'image' | 'video', status?: number): ProviderError {
  return new ProviderError(
    `${service} declined to create this ${what} because of its content rules. Try a different photo or description.`,
    { retryable: false, status, refused: true },
  )
}

/** Replaces every secret (and anything shaped like an OpenAI key) with a placeholder. */
export function redact(text: string, secrets: string[]): string {
  let result = text
  for (const secret of secrets) {
    if (secret) result = result.split(secret).join('[redacted]')
  }
  return result.replace(/\bsk-[A-Za-z0-9_*-]{6,}/g, '[redacted]')
}

async function withTimeLimit<T>(
  url: string,
  init: RequestInit,
  options: HttpCallOptions,
  read: (response: Response) => Promise<T>,
): Promise<T> {
  const timeout = AbortSignal.timeout(options.timeoutMs)
  const stallMs = Math.min(options.stallMs ?? options.timeoutMs, options.timeoutMs)
  const stall = new AbortController()
  const stallTimer = setTimeout(() => stall.abort(), stallMs)
  const signal = AbortSignal.any([options.signal, timeout, stall.signal])
  let answered = false
  try {
    const response = await fetch(url, { ...init, signal })
    clearTimeout(stallTimer)
    countProviderRequest(options.service, response.status)
    answered = true
    // Reading the body stays under the same signal, so a stalled download times out too.
    return await read(response)
  } catch (error) {
    clearTimeout(stallTimer)
    const stalled = !answered && (stall.signal.aborted || timeout.aborted)
    if (!answered) countProviderRequest(options.service, unanswered(timeout, options.signal, stalled))
    if (stalled || timeout.aborted) {
      const within = formatSeconds(stalled ? stallMs : options.timeoutMs)
      throw new ProviderError(`${options.service} did not answer within ${within}.`, {
        retryable: true,
        timedOut: true,
        stalled,
        cause: error,
      })
    }
    if (options.signal.aborted) {
      throw new ProviderError(`The request to ${options.service} was interrupted.`, { retryable: true, cause: error })
    }
    throw new ProviderError(`${options.service} could not be reached.`, {
      retryable: true,
      // No answer because the host refused, reset or could not be found: wait for it. Anything else
      // (a bad URL, a refused certificate) is a mistake that waiting does not mend.
      unreachable: !answered && isNetworkFailure(error),
      cause: error,
    })
  }
}

function unanswered(timeout: AbortSignal, jobSignal: AbortSignal, stalled: boolean) {
  if (timeout.aborted || stalled) return 'timeout'
  return jobSignal.aborted ? 'aborted' : 'network'
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** One line, at most `max` characters. */
export function shorten(text: string, max = 300): string {
  const oneLine = text.replace(/\s+/g, ' ').trim()
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`
}
