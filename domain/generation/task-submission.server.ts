import { randomUUID } from 'node:crypto'
import type { DB } from '#platform/db.server.ts'
import { normalizeUploadedFile } from '#domain/media/images.server.ts'
import { withStagedImages, type StagedImage } from '#domain/media/staged-uploads.server.ts'
import { requireModeratedInputs } from '#domain/moderation/moderate-inputs.server.ts'
import { requirePetPhoto } from '#domain/photo-check/check-pet-photo.server.ts'
import type { PetTraits } from '#domain/pets/pet-traits.ts'
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
    petPhotos = 0,
    withTraits = (params, [traits]) => (traits ? { ...params, traits } : params),
    checked = [],
    typed,
  }: {
    /**
     * How many of the first files are pet photos (one a pet): each checked (domain/photo-check/)
     * before anything is stored or charged.
     */
    petPhotos?: number
    /** The params with what the checks saw of each pet photo, in order (by default the first's, as `traits`). */
    withTraits?: (params: NewTask['params'], traits: (PetTraits | undefined)[]) => NewTask['params']
    /** Images already checked (a saved pet's photos), stored first. */
    checked?: StagedImage[]
    /** The free text the user typed, moderated with the uploads (domain/moderation/) before any cost. */
    typed: string
  },
) {
  const uploads: StagedImage[] = [...checked]
  const originals: Buffer[] = []
  for (const file of files) {
    const { original, ...image } = await normalizeUploadedFile(file)
    originals.push(original)
    uploads.push(image)
  }
  // After the uploads were sniffed (a file that is no image is refused as such), before any cost:
  // the photo checks and moderation, side by side (each a remote call of its own).
  const [checks] = await Promise.all([
    Promise.all(originals.slice(0, petPhotos).map((bytes) => requirePetPhoto(db, bytes))),
    requireModeratedInputs({ text: typed, photos: uploads.map((upload) => upload.bytes) }),
  ])
  if (checks.length > 0) {
    task = {
      ...task,
      params: withTraits(
        task.params,
        checks.map((check) => check.traits),
      ),
    }
  }

  const id = randomUUID()
  return withStagedImages(`tasks/${id}`, uploads, (inputKeys) => createPaidTask(db, { ...task, id, inputKeys }))
}
