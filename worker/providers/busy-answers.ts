/**
 * Reading a 429. OpenAI and Google both answer 429 for two different things:
 * - a busy moment (requests per minute): wait and try again. OpenAI says how long in `retry-after`
 *   (or `retry-after-ms`), Google in the body's google.rpc.RetryInfo `retryDelay` ("12s");
 * - a used-up quota (OpenAI `insufficient_quota`, Google RESOURCE_EXHAUSTED on a PerDay quota):
 *   nothing passes until someone pays or the day ends, so the task fails at once and the operator
 *   must be told.
 */
import { isRecord, type JsonAnswer, ProviderError } from './types.ts'

/** Without any hint from the provider, a busy answer is tried again after this long. */
const DEFAULT_BUSY_WAIT_MS = 10_000

export function busyError(answer: JsonAnswer, service: string): ProviderError {
  const error = isRecord(answer.body) && isRecord(answer.body.error) ? answer.body.error : {}
  if (isQuotaExhausted(error)) {
    return new ProviderError(
      `${service} cannot take more requests: this server's quota is used up. An administrator has been told; your credits have been refunded.`,
      { retryable: false, status: 429, quotaExhausted: true },
    )
  }
  return new ProviderError(`${service} is receiving too many requests right now (HTTP 429).`, {
    retryable: true,
    status: 429,
    retryAfterMs: retryAfterHeader(answer.headers) ?? retryInfoDelay(error) ?? DEFAULT_BUSY_WAIT_MS,
  })
}

function isQuotaExhausted(error: Record<string, unknown>): boolean {
  if (error.code === 'insufficient_quota' || error.type === 'insufficient_quota') return true
  return details(error).some(
    (detail) =>
      detail['@type'] === 'type.googleapis.com/google.rpc.QuotaFailure' &&
      Array.isArray(detail.violations) &&
      detail.violations.some((violation) => isRecord(violation) && /PerDay/i.test(String(violation.quotaId ?? ''))),
  )
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
function retryAfterHeader(headers: Headers): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? Number.NaN)
  if (Number.isFinite(ms) && ms >= 0) return ms
  const value = headers.get('retry-after')
  if (value === null) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

/** google.rpc.RetryInfo's retryDelay, a protobuf Duration in JSON ("12s", "0.5s"). */
function retryInfoDelay(error: Record<string, unknown>): number | undefined {
  const info = details(error).find((detail) => detail['@type'] === 'type.googleapis.com/google.rpc.RetryInfo')
  const match = /^(\d+(?:\.\d+)?)s$/.exec(String(info?.retryDelay ?? ''))
  return match ? Math.round(Number(match[1]) * 1000) : undefined
}

function details(error: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(error.details) ? error.details.filter(isRecord) : []
}
