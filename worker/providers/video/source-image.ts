import { ProviderError } from '../types.ts'
import type { ImageInput, VideoRequest } from '../types.ts'

/** The photo to animate: required in image mode, unused in text mode. */
export function sourceImage(request: VideoRequest): ImageInput | null {
  if (request.mode === 'text') return null
  if (!request.image) {
    throw new ProviderError('Please upload an image first for image-to-video generation', {
      retryable: false,
    })
  }
  return request.image
}
