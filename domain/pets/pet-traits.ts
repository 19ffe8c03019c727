/**
 * What the photo check saw of the pet (species, breed guess, main colours, markings), stored on the
 * image task's params as `traits` and put into the prompt to hold the likeness. Pure.
 */
import { z } from 'zod'

export const petTraitsSchema = z.object({
  species: z.string(),
  /** '' when the model would not guess. */
  breed: z.string(),
  colours: z.array(z.string()),
  markings: z.array(z.string()),
})

export type PetTraits = z.infer<typeof petTraitsSchema>

/** The traits' texts that reach a prompt, each by its name, for moderation (domain/moderation/). */
export function traitTexts(traits: PetTraits): { name: 'species' | 'breed' | 'colours' | 'markings'; text: string }[] {
  return [
    { name: 'species', text: traits.species },
    { name: 'breed', text: traits.breed },
    { name: 'colours', text: traits.colours.join(', ') },
    { name: 'markings', text: traits.markings.join(', ') },
  ]
}

/** One sentence for the prompt, e.g. "The pet is a dog (border collie) with black and white fur; markings: a white blaze". */
export function traitsSentence(traits: PetTraits): string {
  const phrase = traitsPhrase(traits)
  return phrase ? `The pet is ${phrase}; keep these exactly` : ''
}

/** What the pet looks like, e.g. "a dog (border collie) with black and white fur; markings: a white blaze"; '' without a species. */
export function traitsPhrase(traits: PetTraits): string {
  const species = oneLine(traits.species)
  if (!species) return ''
  const breed = oneLine(traits.breed)
  const colours = traits.colours.map(oneLine).filter(Boolean)
  const markings = traits.markings.map(oneLine).filter(Boolean)
  return [
    `a ${species}${breed ? ` (${breed})` : ''}`,
    colours.length > 0 ? ` with ${listed(colours)} fur` : '',
    markings.length > 0 ? `; markings: ${markings.join(', ')}` : '',
  ].join('')
}

// The model's words go into a prompt: one line each, and short.
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 60)

function listed(items: string[]) {
  return items.length === 1 ? items[0] : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

/** Said when a saved pet's several photos lead the images, so the model knows they are one pet. */
export function petPhotosSentence(count: number): string {
  return count > 1 ? `The first ${count} images all show this same pet from different angles` : ''
}
