/**
 * What a generation attempt does after its call failed, as one pure decision: wait for the
 * provider (no attempt used), retry with graphile-worker's backoff, keep the versions made and
 * refund the rest, or fail and refund every version. The worker classifies the error
 * (worker/generation/failure-refunds.ts) and carries the decision out (run-generation.ts);
 * decision 0040 has the table, tests/unit/generation/failure-policy.test.ts a test per row.
 */
import type { RefundReason } from '#domain/credits/refund-reasons.ts'
import type { JobKind } from '#platform/jobs.server.ts'

/** What a failed call was, read from its error. */
export type Failure =
  /** A 429 or no room under our own rate limit: the provider said how long to wait. */
  | { class: 'busy'; retryAfterMs: number }
  /** No answer at all (refused, reset, never connected); `message` is shown if the wait runs out. */
  | { class: 'unreachable'; retryAfterMs?: number; message: string }
  /** Any other failure: a provider's answer, a timeout, or an error of our own (`retryable`). */
  | {
      class: 'call'
      retryable: boolean
      /** The call ran out of time: the provider may still have done, and billed, the work. */
      timedOut: boolean
      /** What the task shows, and why its versions are refunded, if this failure ends it. */
      message: string
      refundReason: RefundReason
    }

export interface FailedAttempt {
  failure: Failure
  /** This attempt, from 1, and the job's most. */
  attempt: number
  maxAttempts: number
  /** The job kind's declared properties (jobKinds in platform/jobs.server.ts). */
  kind: NonNullable<JobKind['generation']>
  /** The task's timed-out calls counted so far, this one included (countsTimedOutCall). */
  timedOutCalls: number
  /** Versions stored by this attempt or earlier ones. */
  storedVersions: number
  /** How long the task has waited so far, and the most it may (TASK_MAX_WAIT_MS). */
  waitedMs: number
  maxWaitMs: number
  /** Added to a wait, so the jobs that wait do not all come back in the same instant. */
  jitterMs: number
}

export type FailureDecision =
  /**
   * Run the job again after `delayMs`, no attempt used. Past the task's wait budget the wait itself
   * fails and refunds the task (task-waits.server.ts): as unreachable with this message, or as busy.
   */
  | { action: 'wait'; delayMs: number; unreachable?: string }
  /** Back in the queue; graphile-worker's backoff runs the job again. */
  | { action: 'retry' }
  /** Complete with the versions stored, refunding each missing one. */
  | { action: 'keep'; refundReason: RefundReason }
  /** Fail with `message` shown, refunding every version. */
  | { action: 'fail'; message: string; refundReason: RefundReason }

/** A timed-out call may have been billed: it is tried once more, then the task fails. */
const MAX_TIMED_OUT_CALLS = 2
/** The shortest and longest wait for a provider that cannot be reached. */
const FIRST_WAIT_MS = 1_000
const LONGEST_WAIT_MS = 60_000

/**
 * Whether this failure is a timed-out call to count (recordTimedOutCall) before deciding: one the
 * job kind may have been billed for, that would otherwise be retried.
 */
export function countsTimedOutCall({ failure, attempt, maxAttempts, kind }: Omit<FailedAttempt, 'timedOutCalls'>) {
  return (
    failure.class === 'call' &&
    failure.retryable &&
    failure.timedOut &&
    kind.timedOutCallMayBeBilled &&
    attempt < maxAttempts
  )
}

export function decideAfterFailure(known: FailedAttempt): FailureDecision {
  const { failure } = known
  if (failure.class !== 'call') {
    // A busy provider says how long to wait; an unreachable one is given as long again as the task
    // has waited so far, so the waits double.
    const waitMs = failure.retryAfterMs ?? Math.min(Math.max(known.waitedMs, FIRST_WAIT_MS), LONGEST_WAIT_MS)
    const delayMs = waitMs + known.jitterMs
    // Waited too long with some versions in hand: those are kept, only the others refunded.
    if (known.storedVersions > 0 && known.waitedMs + delayMs > known.maxWaitMs) {
      return { action: 'keep', refundReason: failure.class }
    }
    return failure.class === 'unreachable'
      ? { action: 'wait', delayMs, unreachable: failure.message }
      : { action: 'wait', delayMs }
  }
  if (isRetried(failure, known)) return { action: 'retry' }
  if (known.storedVersions > 0) return { action: 'keep', refundReason: failure.refundReason }
  return { action: 'fail', message: failure.message, refundReason: failure.refundReason }
}

function isRetried(failure: Extract<Failure, { class: 'call' }>, known: FailedAttempt) {
  if (known.attempt >= known.maxAttempts || !failure.retryable) return false
  if (!failure.timedOut || !known.kind.timedOutCallMayBeBilled) return true
  return known.timedOutCalls < MAX_TIMED_OUT_CALLS
}
