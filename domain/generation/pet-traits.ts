/**
 * What is known about the pet in a task's photos (a saved pet's fields today; the photo check's
 * findings too), kept on the task's params so the prompt, and any fix of the task, can hold its
 * likeness. Pure: shared by the web, the worker and the pets domain.
 */
import { z } from 'zod'

export const petTraitsSchema = z.object({
  species: z.string(),
  breed: z.string(),
  colours: z.string(),
  markings: z.string(),
})

export type PetTraits = z.infer<typeof petTraitsSchema>

/** One sentence naming the pet's traits, or '' when nothing is known. */
export function traitsSentence(traits: PetTraits | undefined): string {
  if (!traits) return ''
  const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()
  const parts = [
    [oneLine(traits.breed), oneLine(traits.species)].filter(Boolean).join(' '),
    oneLine(traits.colours) && `colours ${oneLine(traits.colours)}`,
    oneLine(traits.markings) && `markings ${oneLine(traits.markings)}`,
  ].filter(Boolean)
  return parts.length > 0 ? `The pet: ${parts.join('; ')}. Keep these traits exactly` : ''
}

/** Said when a saved pet's several photos lead the images, so the model knows they are one pet. */
export function petPhotosSentence(count: number): string {
  return count > 1 ? `The first ${count} images all show this same pet from different angles` : ''
}
