import { randomUUID } from 'node:crypto'
import type { DB } from '#platform/db.server.ts'
import { normalizeUploadedFile } from '#domain/media/images.server.ts'
import { withStagedImages, type StagedImage } from '#domain/media/staged-uploads.server.ts'
import { requireModeratedInputs } from '#domain/moderation/moderate-inputs.server.ts'
import { requirePetPhoto } from '#domain/photo-check/check-pet-photo.server.ts'
import { createPaidTask, type NewTask } from './paid-task.server.ts'

/**
 * Sniffs and re-encodes the uploads one after the other, stores them under the new task's own
 * prefix (after `checked`, images already checked, such as a saved pet's photos), then pays for and
 * queues the task in one transaction. Any failure (a bad file, too few credits, storage trouble)
 * deletes what was stored, so a refused submission leaves no file behind.
 */
export async function submitPaidTask(
  db: DB,
  task: Omit<NewTask, 'id' | 'inputKeys'>,
  files: File[],
  {
    petPhoto = false,
    checked = [],
    typed,
  }: {
    /** The first file is the pet photo: checked (domain/photo-check/) before anything is stored or charged. */
    petPhoto?: boolean
    /** Images already checked (a saved pet's photos), stored first. */
    checked?: StagedImage[]
    /** The free text the user typed, moderated with the uploads (domain/moderation/) before any cost. */
    typed: string
  },
) {
  const uploads: StagedImage[] = [...checked]
  let firstBytes: Buffer | undefined
  for (const file of files) {
    const { original, ...image } = await normalizeUploadedFile(file)
    firstBytes ??= original
    uploads.push(image)
  }
  // After the uploads were sniffed (a file that is no image is refused as such), before any cost:
  // the photo check and moderation, side by side (each a remote call of its own).
  const [check] = await Promise.all([
    petPhoto && firstBytes ? requirePetPhoto(db, firstBytes) : undefined,
    requireModeratedInputs({ text: typed, photos: uploads.map((upload) => upload.bytes) }),
  ])
  if (check?.traits) task = { ...task, params: { ...task.params, traits: check.traits } }

  const id = randomUUID()
  return withStagedImages(`tasks/${id}`, uploads, (inputKeys) => createPaidTask(db, { ...task, id, inputKeys }))
}
