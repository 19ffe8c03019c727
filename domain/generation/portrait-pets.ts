/**
 * The pets of one portrait (issue 41): up to MAX_PETS, in the order the user chose them, each with
 * how many of the task's leading images are its photos and what it looks like. A task of one pet
 * keeps the older single fields (`petId`, `petPhotoCount`, `traits`); a task of several lists them
 * in `pets`. Pure: the web writes them, the worker reads them back for the prompt and the renderer.
 */
import { z } from 'zod'
import { petTraitsSchema, traitsPhrase } from '#domain/pets/pet-traits.ts'

export const MAX_PETS = 4

export const portraitPetSchema = z.object({
  /** A saved pet's name; absent for a photo uploaded for the run. */
  name: z.string().optional(),
  petId: z.string().optional(),
  photoCount: z.number().int().min(1),
  traits: petTraitsSchema.optional(),
})

export type PortraitPet = z.infer<typeof portraitPetSchema>

const ORDINALS = ['first', 'second', 'third', 'fourth'] as const

/** "first", "second"… for pet `index` (from 0). */
export const petOrdinal = (index: number) => ORDINALS[index] ?? `number ${index + 1}`

/** A pet as the pages and the fix form name it: its name, else "Pet 2". */
export const petLabel = (pet: Pick<PortraitPet, 'name'>, index: number) => pet.name?.trim() || `Pet ${index + 1}`

/** Which images are the pet's: "image 3" or "images 1 to 2", counted from 1 across every pet. */
function imagesOf(pets: PortraitPet[], index: number) {
  const first = pets.slice(0, index).reduce((sum, pet) => sum + pet.photoCount, 0) + 1
  const last = first + pets[index].photoCount - 1
  return first === last ? `image ${first}` : `images ${first} to ${last}`
}

/**
 * The prompt's sentence naming each pet in order, e.g. "The portrait shows these 2 pets together,
 * each keeping its own likeness: the first, Biscuit, a dog (beagle) with tan fur; markings: a white
 * blaze (images 1 to 2); the second, a cat with black fur (image 3)".
 */
export function petsSentence(pets: PortraitPet[]): string {
  const described = pets.map((pet, index) => {
    const name = pet.name?.replace(/\s+/g, ' ').trim().slice(0, 60)
    const looks = pet.traits ? traitsPhrase(pet.traits) : ''
    return `${[`the ${petOrdinal(index)}`, name, looks].filter(Boolean).join(', ')} (${imagesOf(pets, index)})`
  })
  return `The portrait shows these ${pets.length} pets together, each keeping its own likeness: ${described.join('; ')}`
}
