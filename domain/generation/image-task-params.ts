import { z } from 'zod'
import { GENERATOR_STYLES, guidedOptionsSchema, type ImagePromptInput } from '#domain/generation/prompt.ts'
import { likenessCorrections, likenessFixSchema } from '#domain/generation/likeness-fix.ts'
import { petTraitsSchema } from '#domain/pets/pet-traits.ts'
import { versionTitleSchema } from '#domain/titles/title-options.ts'
import { QUALITY_CHOICES } from './image-prices.ts'
import { MAX_PETS, petLabel, petOrdinal, portraitPetSchema, type PortraitPet } from './portrait-pets.ts'

/**
 * An image task's params: what the user asked for, from which the worker builds the prompt. The
 * web writes them, the worker reads them back through the same schema.
 */
export const imageTaskParamsSchema = z.object({
  mode: z.enum(['guide', 'customize', 'template']),
  style: z.enum(GENERATOR_STYLES),
  guided: guidedOptionsSchema,
  prompt: z.string(),
  templatePrompt: z.string(),
  templateId: z.string().nullable(),
  /** A re-roll's or a fix's fresh seed (decision 0030). */
  seed: z.number().int().optional(),
  /** What a likeness fix corrects (decision 0030). */
  likenessFix: likenessFixSchema.optional(),
  /** What the photo check's vision model (or a saved pet) says of the pet; absent offline, or on older tasks. */
  traits: petTraitsSchema.optional(),
  /** The saved pet the task was made with: its photos lead the task's images (decision 0032). */
  petId: z.string().optional(),
  petPhotoCount: z.number().int().min(1).optional(),
  /** Standard or HD (decision 0035); older tasks are standard. */
  quality: z.enum(QUALITY_CHOICES).optional(),
  /** HD: what a version delivered smaller than HD gets back (HD's price minus standard's, at payment). */
  hdShortfallRefund: z.number().int().min(0).optional(),
  /** A portrait of several pets, in order (issue 41); a task of one pet uses the fields above. */
  pets: z.array(portraitPetSchema).min(2).max(MAX_PETS).optional(),
  /** The title set on each version once it is made (issue 41, item 3). */
  title: versionTitleSchema.optional(),
})

export type ImageTaskParams = z.infer<typeof imageTaskParamsSchema>

/** The task's pets in order: its `pets`, or the one pet of the older fields. */
export function petsOf(params: ImageTaskParams): PortraitPet[] {
  if (params.pets) return params.pets
  return [{ petId: params.petId, photoCount: params.petPhotoCount ?? 1, traits: params.traits }]
}

/** How many of the task's leading images are photos of its pets. */
const petPhotoTotal = (params: ImageTaskParams) => petsOf(params).reduce((sum, pet) => sum + pet.photoCount, 0)

/** What the prompt builder needs, given how many images the task stored. */
export function promptInputFor(params: ImageTaskParams, imageCount: number): ImagePromptInput {
  // Only a task made with a saved pet of several photos says how many there are.
  const pet = {
    traits: params.traits,
    ...(params.petPhotoCount ? { petPhotoCount: params.petPhotoCount } : {}),
    ...(params.pets ? { pets: params.pets } : {}),
  }
  switch (params.mode) {
    case 'guide':
      return { mode: 'guide', style: params.style, guided: params.guided, ...pet }
    case 'customize':
      return {
        mode: 'customize',
        style: params.style,
        prompt: params.prompt,
        referenceImageCount: imageCount - petPhotoTotal(params),
        ...pet,
      }
    case 'template':
      return {
        mode: 'template',
        style: params.style,
        templatePrompt: params.templatePrompt,
        prompt: params.prompt,
        ...pet,
      }
  }
}

/** The corrections a likeness fix adds after the prompt ('' for any other task); of several pets, the one named. */
export function correctionsFor(params: ImageTaskParams): string {
  if (!params.likenessFix) return ''
  if (!params.pets) return likenessCorrections(params.likenessFix, params.traits)
  const index = params.likenessFix.pet ?? 0
  const pet = params.pets[index] ?? params.pets[0]
  const who = `the ${petOrdinal(index)} pet${pet.name ? `, ${petLabel(pet, index)}` : ''}`
  return likenessCorrections(params.likenessFix, pet.traits, who)
}
