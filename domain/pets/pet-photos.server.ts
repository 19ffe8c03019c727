import type { DB } from '#platform/db.server.ts'
import { normalizeUploadedFile, type EncodedImage } from '#domain/media/images.server.ts'
import { requirePetPhoto } from '#domain/photo-check/check-pet-photo.server.ts'

/**
 * The one door every saved-pet photo comes in by (the /pets page, POST and PUT /api/pets, "Save
 * this pet"): the generator's own sniffing and bounding (content type by content, size and pixel
 * limits, re-encoded upright without metadata, one decode at a time), then the photo check
 * (domain/photo-check/): a photo that cannot work is refused with its 422 before anything is stored.
 */
export async function acceptPetPhoto(db: DB, file: File): Promise<EncodedImage> {
  const { original, ...image } = await normalizeUploadedFile(file)
  await requirePetPhoto(db, original)
  return image
}
