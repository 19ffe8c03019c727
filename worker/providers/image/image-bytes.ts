import { ProviderError } from '../types.ts'
import type { GeneratedMedia, ImageInput, ImageMimeType, ImageRequest } from '../types.ts'

/** The pet photo (always the first image); a request without one is final bad input. */
export function petPhoto(request: ImageRequest): ImageInput {
  const [photo] = request.images
  if (!photo) throw new ProviderError('A pet photo is required.', { retryable: false })
  return photo
}

/** Each pet's first photo, in order (issue 41): the pets' photos lead the images, `petPhotoCounts` apiece. */
export function petPhotos(request: ImageRequest): ImageInput[] {
  const first = petPhoto(request)
  const counts = request.petPhotoCounts ?? [1]
  const starts = counts.map((_, index) => counts.slice(0, index).reduce((sum, count) => sum + count, 0))
  return starts.map((start) => request.images[start] ?? first)
}

/** A request over the provider's documented image limit is final bad input (the web refuses it first). */
export function refuseOverImageLimit(request: ImageRequest, service: string, most: number) {
  if (request.images.length > most) {
    throw new ProviderError(`${service} takes at most ${most} images; this request has ${request.images.length}.`, {
      retryable: false,
    })
  }
}

/** The image type told by the file's first bytes, or null when it is none we accept. */
function sniffImageMimeType(bytes: Uint8Array): ImageMimeType | null {
  const startsWith = (signature: number[], offset = 0) =>
    signature.every((byte, index) => bytes[offset + index] === byte)
  if (startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (startsWith([0xff, 0xd8, 0xff])) return 'image/jpeg'
  if (startsWith([0x52, 0x49, 0x46, 0x46]) && startsWith([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp'
  return null
}

/**
 * Decodes a base64 image from a model's answer, trusting the bytes rather than any declared type.
 * Null when the data is not a PNG, JPEG or WebP image.
 */
export function imageFromBase64(data: string): GeneratedMedia | null {
  const bytes = Buffer.from(data, 'base64')
  const mimeType = sniffImageMimeType(bytes)
  return mimeType ? { bytes, mimeType } : null
}
