/**
 * What the error an attempt ended with means to the failure policy
 * (domain/generation/failure-policy.ts), and why a task that failed for good is refunded, as the
 * refund line says it (domain/credits/refund-reasons.ts).
 */
import type { RefundReason } from '#domain/credits/refund-reasons.ts'
import type { Failure } from '#domain/generation/failure-policy.ts'
import { ProviderError } from '#worker/providers/types.ts'

/** The uploaded photo is gone (expired or deleted) before the provider could be asked. */
export class PhotoGoneError extends ProviderError {
  constructor() {
    super('The uploaded photo is no longer available.', { retryable: false })
  }
}

/**
 * The upscaler failed on a picture ("Make it bigger"): retried while attempts are left, unless the
 * picture itself cannot be read (no attempt would read it).
 */
export class UpscaleError extends ProviderError {
  constructor(cause: unknown, { retryable }: { retryable: boolean }) {
    super(`The picture could not be enlarged: ${cause instanceof Error ? cause.message : String(cause)}`, {
      retryable,
      cause,
    })
  }
}

const INTERNAL_FAILURE = 'Something went wrong while generating. Please try again.'

/** A provider's failure as the policy reads it; any other error is ours, and retried. */
export function failureOf(error: unknown): Failure {
  if (!(error instanceof ProviderError)) {
    return { class: 'call', retryable: true, timedOut: false, message: INTERNAL_FAILURE, refundReason: 'internal' }
  }
  if (error.unreachable) return { class: 'unreachable', retryAfterMs: error.retryAfterMs, message: error.message }
  if (error.retryAfterMs !== undefined) return { class: 'busy', retryAfterMs: error.retryAfterMs }
  return {
    class: 'call',
    retryable: error.retryable,
    timedOut: error.timedOut,
    message: error.message,
    refundReason: refundReasonOf(error),
  }
}

export function refundReasonOf(error: unknown): RefundReason {
  if (error instanceof PhotoGoneError) return 'photo_gone'
  if (error instanceof UpscaleError) return 'not_enlarged'
  if (!(error instanceof ProviderError)) return 'internal'
  if (error.refused) return 'refused'
  if (error.quotaExhausted) return 'quota'
  if (error.timedOut) return 'timeout'
  if (error.unreachable) return 'unreachable'
  // 401, 403, or Google's 400 API_KEY_INVALID (ProviderError.reason 'auth').
  if (error.credentialsRefused) return 'auth'
  // A 2xx without (all) the pictures asked for: answered, but not delivered.
  if (error.status !== undefined && error.status < 300) return 'not_delivered'
  return 'provider_error'
}
