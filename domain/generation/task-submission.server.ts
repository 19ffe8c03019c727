import { randomUUID } from 'node:crypto'
import type { DB } from '#platform/db.server.ts'
import { normalizeUploadedFile } from '#domain/media/images.server.ts'
import { withStagedImages, type StagedImage } from '#domain/media/staged-uploads.server.ts'
import { requireModeratedInputs, traitFields } from '#domain/moderation/moderate-inputs.server.ts'
import type { PetTraits } from '#domain/pets/pet-traits.ts'
import { requirePetPhoto } from '#domain/photo-check/check-pet-photo.server.ts'
import { createPaidTask, refuseUnpayable, type NewTask } from './paid-task.server.ts'

/**
 * Reads first whether the user can pay and has room for one more task (refuseUnpayable: no paid
 * outside call for a 402 or a 429). Sniffs and re-encodes the uploads one after the other, stores them under the new task's own
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
    petTraits = [],
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
    /** Saved pets' traits, which go into the prompt too: moderated with the typed text. */
    petTraits?: PetTraits[]
  },
) {
  await refuseUnpayable(db, task)
  const uploads: StagedImage[] = [...checked]
  const originals: Buffer[] = []
  for (const file of files) {
    const { original, ...image } = await normalizeUploadedFile(file)
    originals.push(original)
    uploads.push(image)
  }
  // After the uploads were sniffed (a file that is no image is refused as such), before any cost:
  // the photo checks and moderation, side by side (each a remote call of its own). Every text that
  // reaches the prompt is moderated: the typed text, saved pets' traits, then what the vision model
  // read off each pet photo (a photo can carry words meant for the prompt).
  const [checks] = await Promise.all([
    Promise.all(originals.slice(0, petPhotos).map((bytes) => requirePetPhoto(db, bytes))),
    requireModeratedInputs({
      text: typed,
      fields: petTraits.flatMap((traits) => traitFields(traits, () => 'petId', savedPetRefusal)),
      photos: uploads.map((upload) => upload.bytes),
    }),
  ])
  const seen = checks.flatMap((check) => (check.traits ? [check.traits] : []))
  if (seen.length > 0) {
    await requireModeratedInputs({
      fields: seen.flatMap((traits) => traitFields(traits, () => 'images', seenTraitsRefusal)),
    })
  }
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

const savedPetRefusal = (subject: string, categories: string) =>
  `Your pet's ${subject} flagged for ${categories}; please change it on My Pets`
const seenTraitsRefusal = (_subject: string, categories: string) =>
  `What we saw in this photo was flagged for ${categories}; please choose another`
