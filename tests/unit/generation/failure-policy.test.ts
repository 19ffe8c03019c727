import {
  countsTimedOutCall,
  decideAfterFailure,
  type FailedAttempt,
  type Failure,
} from '#domain/generation/failure-policy.ts'
import { jobKinds } from '#platform/jobs.server.ts'

/** One test per row of the failure policy's table (decision 0040). */

const image = jobKinds.generate_image.generation
const video = jobKinds.generate_video.generation
const MINUTE = 60_000

const call = (overrides: Partial<Extract<Failure, { class: 'call' }>> = {}): Failure => ({
  class: 'call',
  retryable: true,
  timedOut: false,
  message: 'The provider failed.',
  refundReason: 'provider_error',
  ...overrides,
})

const attempt = (overrides: Partial<FailedAttempt> = {}): FailedAttempt => ({
  failure: call(),
  attempt: 1,
  maxAttempts: 4,
  kind: image,
  timedOutCalls: 0,
  storedVersions: 0,
  waitedMs: 0,
  maxWaitMs: 15 * MINUTE,
  jitterMs: 300,
  ...overrides,
})

describe('a busy provider (a 429, or no room under the rate limit)', () => {
  test('waits what it said, plus the jitter, on any attempt', () => {
    const failure: Failure = { class: 'busy', retryAfterMs: 5_000 }
    expect(decideAfterFailure(attempt({ failure, attempt: 4 }))).toEqual({ action: 'wait', delayMs: 5_300 })
  })

  test('with versions stored and a wait past the budget: keeps them, refunds the rest as busy', () => {
    const failure: Failure = { class: 'busy', retryAfterMs: 2 * MINUTE }
    const known = attempt({ failure, storedVersions: 1, waitedMs: 14 * MINUTE })
    expect(decideAfterFailure(known)).toEqual({ action: 'keep', refundReason: 'busy' })
  })

  test('with nothing stored, a wait past the budget is still a wait: the wait fails and refunds the task', () => {
    const failure: Failure = { class: 'busy', retryAfterMs: 2 * MINUTE }
    const known = attempt({ failure, waitedMs: 14 * MINUTE })
    expect(decideAfterFailure(known)).toEqual({ action: 'wait', delayMs: 2 * MINUTE + 300 })
  })
})

describe('an unreachable provider', () => {
  const failure: Failure = { class: 'unreachable', message: 'The provider could not be reached.' }

  test('waits as long again as the task has waited, at least a second', () => {
    expect(decideAfterFailure(attempt({ failure }))).toEqual({
      action: 'wait',
      delayMs: 1_300,
      unreachable: 'The provider could not be reached.',
    })
    expect(decideAfterFailure(attempt({ failure, waitedMs: 8_000 }))).toMatchObject({ delayMs: 8_300 })
  })

  test('waits at most a minute, or what the provider said', () => {
    expect(decideAfterFailure(attempt({ failure, waitedMs: 10 * MINUTE }))).toMatchObject({ delayMs: MINUTE + 300 })
    const said: Failure = { ...failure, retryAfterMs: 4_000 }
    expect(decideAfterFailure(attempt({ failure: said, waitedMs: 10 * MINUTE }))).toMatchObject({ delayMs: 4_300 })
  })

  test('with versions stored and a wait past the budget: keeps them, refunds the rest as unreachable', () => {
    const known = attempt({ failure, storedVersions: 2, waitedMs: 15 * MINUTE - 1_000 })
    expect(decideAfterFailure(known)).toEqual({ action: 'keep', refundReason: 'unreachable' })
  })
})

describe('a failed call', () => {
  test('retryable, with attempts left: retried', () => {
    expect(decideAfterFailure(attempt({ attempt: 3 }))).toEqual({ action: 'retry' })
  })

  test('an error of our own (retryable) with attempts left: retried', () => {
    const failure = call({ message: 'Something went wrong.', refundReason: 'internal' })
    expect(decideAfterFailure(attempt({ failure }))).toEqual({ action: 'retry' })
  })

  test('final (a refusal, bad input, an exhausted quota): fails and refunds at once', () => {
    const failure = call({ retryable: false, message: 'Refused.', refundReason: 'refused' })
    expect(decideAfterFailure(attempt({ failure }))).toEqual({
      action: 'fail',
      message: 'Refused.',
      refundReason: 'refused',
    })
  })

  test('on the last attempt: fails and refunds', () => {
    expect(decideAfterFailure(attempt({ attempt: 4 }))).toEqual({
      action: 'fail',
      message: 'The provider failed.',
      refundReason: 'provider_error',
    })
  })

  test('final, with versions stored: keeps them and refunds the rest with the failure as reason', () => {
    const failure = call({ retryable: false, refundReason: 'not_delivered' })
    expect(decideAfterFailure(attempt({ failure, storedVersions: 1 }))).toEqual({
      action: 'keep',
      refundReason: 'not_delivered',
    })
    expect(decideAfterFailure(attempt({ attempt: 4, storedVersions: 3 }))).toEqual({
      action: 'keep',
      refundReason: 'provider_error',
    })
  })
})

describe('a timed-out call', () => {
  const failure = call({ timedOut: true, refundReason: 'timeout' })

  test('of a kind that may be billed for it: counted, retried the first time', () => {
    const known = attempt({ failure, timedOutCalls: 1 })
    expect(countsTimedOutCall(known)).toBe(true)
    expect(decideAfterFailure(known)).toEqual({ action: 'retry' })
  })

  test('of a kind that may be billed for it: the second one fails the task, attempts left or not', () => {
    expect(decideAfterFailure(attempt({ failure, attempt: 2, timedOutCalls: 2 }))).toEqual({
      action: 'fail',
      message: 'The provider failed.',
      refundReason: 'timeout',
    })
  })

  test('of a kind not billed for it (a video): never counted, retried while attempts are left', () => {
    const known = attempt({ failure, kind: video, attempt: 3 })
    expect(countsTimedOutCall(known)).toBe(false)
    expect(decideAfterFailure(known)).toEqual({ action: 'retry' })
  })

  test('on the last attempt: not counted, fails', () => {
    const known = attempt({ failure, attempt: 4 })
    expect(countsTimedOutCall(known)).toBe(false)
    expect(decideAfterFailure(known)).toMatchObject({ action: 'fail', refundReason: 'timeout' })
  })
})
