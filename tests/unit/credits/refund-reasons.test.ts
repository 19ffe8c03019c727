import { refundLine } from '#domain/credits/refund-reasons.ts'
import { ProviderError } from '#worker/providers/types.ts'
import { PhotoGoneError, refundReasonOf } from '#worker/generation/failure-refunds.ts'

test('a one-version run says "this picture" or "this video"; a run of several names the version', () => {
  expect(refundLine('refused', { kind: 'image', index: 0, of: 1 })).toBe(
    'Refunded: the provider declined this picture (safety)',
  )
  expect(refundLine('timeout', { kind: 'video', index: 0, of: 1 })).toBe(
    'Refunded: no provider could finish this video in time',
  )
  expect(refundLine('not_delivered', { kind: 'image', index: 2, of: 4 })).toBe(
    'Refunded: the provider did not deliver version 3 of 4',
  )
  expect(refundLine('refused', { kind: 'image', index: 1, of: 2 })).toBe(
    'Refunded: the provider declined version 2 of 2 (safety)',
  )
})

test('the reason of a failure, read from the error the attempt ended with', () => {
  const failure = (options: ConstructorParameters<typeof ProviderError>[1]) => new ProviderError('x', options)
  expect(refundReasonOf(failure({ retryable: false, refused: true, status: 400 }))).toBe('refused')
  expect(refundReasonOf(failure({ retryable: false, quotaExhausted: true, status: 429 }))).toBe('quota')
  expect(refundReasonOf(failure({ retryable: true, timedOut: true }))).toBe('timeout')
  expect(refundReasonOf(failure({ retryable: true, unreachable: true }))).toBe('unreachable')
  expect(refundReasonOf(failure({ retryable: false, status: 401, credentialsRefused: true }))).toBe('auth')
  expect(refundReasonOf(failure({ retryable: true, status: 503 }))).toBe('provider_error')
  expect(refundReasonOf(failure({ retryable: false, status: 200 }))).toBe('not_delivered')
  expect(refundReasonOf(new PhotoGoneError())).toBe('photo_gone')
  expect(refundReasonOf(new Error('a bug'))).toBe('internal')
})
