import { normalizeUploadedFile, type EncodedImage } from '#domain/media/images.server.ts'

/**
 * The one door every saved-pet photo comes in by (the /pets page, POST and PUT /api/pets): today
 * the generator's own sniffing and bounding (content type by content, size and pixel limits,
 * re-encoded upright without metadata, one decode at a time). The photo check (issue 31, item 5)
 * joins here, so every pet photo is checked the same way.
 */
export function acceptPetPhoto(file: File): Promise<EncodedImage> {
  return normalizeUploadedFile(file)
}
