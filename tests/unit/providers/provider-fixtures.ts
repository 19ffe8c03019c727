/** Helpers shared by the image and video provider tests (not a test file itself). */
import { ProviderError } from '#worker/providers/types.ts'

/** The context a provider's generate() receives, recording every progress value reported. */
export function testContext(signal = new AbortController().signal) {
  const progress: number[] = []
  return { progress, signal, onProgress: (percent: number) => void progress.push(percent) }
}

/** The ProviderError a promise rejects with (fails the test if it resolves or throws something else). */
export async function providerFailure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(ProviderError)
  return error as ProviderError
}
