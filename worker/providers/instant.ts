import { petPhoto } from './image/image-bytes.ts'
import { ProviderError, versionsOf, type ImageProvider } from './types.ts'

/**
 * Tests and benchmarks only (the environment refuses it in production): answers the pet photo
 * itself, once per version asked for, after `delayMs` (so a test can catch a job mid-flight),
 * without any rendering cost.
 */
export function createInstantImageProvider(delayMs: number): ImageProvider {
  return {
    name: 'instant',
    requestPerVersion: false,
    model: null,
    async generate(request, context) {
      const photo = petPhoto(request)
      if (delayMs > 0) {
        await context.onProgress(10)
        await abortableDelay(delayMs, context.signal)
      }
      return { images: versionsOf(request).map(() => ({ bytes: photo.bytes, mimeType: photo.mimeType })) }
    },
  }
}

function abortableDelay(ms: number, signal: AbortSignal) {
  return new Promise<void>((resolve, reject) => {
    const interrupted = () => {
      clearTimeout(timer)
      reject(new ProviderError('The instant provider was interrupted.', { retryable: true }))
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', interrupted)
      resolve()
    }, ms)
    if (signal.aborted) interrupted()
    else signal.addEventListener('abort', interrupted, { once: true })
  })
}
