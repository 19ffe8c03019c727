import { z } from 'zod'
import { QUALITY_CHOICES, VARIANT_CHOICES } from '#domain/generation/image-prices.ts'
import { GENERATOR_STYLES, guidedOptionsSchema, PROMPT_MAX_LENGTH } from '#domain/generation/prompt.ts'
import { titleFieldsSchema } from '#domain/titles/title-options.ts'
import { MAX_PETS } from './portrait-pets.ts'

/**
 * The fields of POST /api/async-image/generate (spec section 7), shared by the API, the /generate
 * page's action and its in-browser validation: `images` (the pet photo first, then up to five
 * references in Customize mode) or `petId` (a saved pet, whose photos replace the pet photo;
 * `images` then holds only references), `style`, and either `prompt` (Customize), the guided
 * fields with an empty prompt (Guide), or `templatePrompt`/`prompt`/`template_id` with style
 * `template`; `variants`, how many versions to make (an addition to the spec: 1, 2 or 4, default 1);
 * and `quality`, `standard` (the default) or `hd` (the provider's largest output, decision 0035).
 * Several pets (issue 41): `petIds` (saved pets, 1 to MAX_PETS, in order) or `petPhotos` (one photo
 * a pet, in order, instead of the first `images` file); `title`, `titleStyle`, `titleFont`.
 */

export const MAX_REFERENCE_IMAGES = 5
/** The most files one submission carries: a photo for each pet, then the references. */
export const MAX_FILES = MAX_PETS + MAX_REFERENCE_IMAGES
export const MAX_IMAGE_MB = 10
const NO_PHOTO_MESSAGE = 'Please upload a pet photo first'

const VARIANTS_MESSAGE = `variants must be ${VARIANT_CHOICES.slice(0, -1).join(', ')} or ${VARIANT_CHOICES.at(-1)}`
const variants = z
  .number({ invalid_type_error: VARIANTS_MESSAGE })
  .refine((value) => (VARIANT_CHOICES as readonly number[]).includes(value), VARIANTS_MESSAGE)
  .default(1)

const quality = z
  .enum(QUALITY_CHOICES, { errorMap: () => ({ message: 'quality must be standard or hd' }) })
  .default('standard')

const freeText = (what: string) =>
  z.string().trim().max(PROMPT_MAX_LENGTH, `The ${what} must be at most ${PROMPT_MAX_LENGTH} characters`).default('')

const image = z
  .instanceof(File)
  .refine((file) => file.size <= MAX_IMAGE_MB * 1024 * 1024, `File size should not exceed ${MAX_IMAGE_MB}MB`)

const TOO_MANY_PETS = `A portrait has at most ${MAX_PETS} pets`

// An empty file input still sends an empty part, which conform reads as undefined.
const files = (most: number, message: string) =>
  z
    .array(image.optional())
    .default([])
    .transform((files) => files.filter((file) => file !== undefined))
    .pipe(z.array(image).max(most, message))

const petIdSchema = z.string().trim().uuid('Unknown saved pet')

export const imageGenerationSchema = z
  .object({
    images: files(
      1 + MAX_REFERENCE_IMAGES,
      `Upload the pet photo and at most ${MAX_REFERENCE_IMAGES} reference images`,
    ),
    /** A saved pet of the user's, instead of the pet photo: its photos lead the task's images. */
    petId: petIdSchema.optional(),
    /** Saved pets, in order, instead of the pet photo (petId is a list of one). */
    petIds: z
      .array(petIdSchema.optional())
      .default([])
      .transform((ids) => ids.filter((id) => id !== undefined))
      .pipe(z.array(petIdSchema).max(MAX_PETS, TOO_MANY_PETS)),
    /** One photo a pet, in order, instead of the first `images` file. */
    petPhotos: files(MAX_PETS, TOO_MANY_PETS),
    style: z.enum(GENERATOR_STYLES, {
      errorMap: () => ({ message: `Unknown style: choose one of ${GENERATOR_STYLES.join(', ')}` }),
    }),
    /** Sent by the page, where it wins over a leftover prompt; without it the prompt decides. */
    mode: z.enum(['guide', 'customize']).optional(),
    prompt: freeText('prompt'),
    templatePrompt: freeText('template prompt'),
    template_id: z.string().trim().max(100).optional(),
    /** How many versions to make: 1 (the default, as the spec's API), 2 or 4. */
    variants,
    /** Standard (the default) or HD. */
    quality,
    ...guidedOptionsSchema.shape,
    ...titleFieldsSchema.shape,
  })
  .superRefine((value, ctx) => {
    const mode = generationMode(value)
    const petIds = savedPetIds(value)
    const saved = petIds.length > 0
    const photos = value.petPhotos.length > 0
    if (saved && photos) {
      ctx.addIssue({
        code: 'custom',
        path: ['petPhotos'],
        message: 'Choose saved pets or upload a photo for each pet, not both',
      })
      return
    }
    if (petIds.length > MAX_PETS) ctx.addIssue({ code: 'custom', path: ['petIds'], message: TOO_MANY_PETS })
    if (new Set(petIds).size < petIds.length) {
      ctx.addIssue({ code: 'custom', path: ['petIds'], message: 'Choose each saved pet once' })
    }
    if (!saved && !photos && value.images.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['images'], message: NO_PHOTO_MESSAGE })
    }
    // With saved pets or a photo a pet, `images` holds only the reference images.
    const separatePets = saved || photos
    const references = separatePets ? value.images.length : value.images.length - 1
    if (separatePets && references > 0 && mode !== 'customize') {
      ctx.addIssue({
        code: 'custom',
        path: ['images'],
        message: 'You chose a saved pet: leave the photo empty, or choose "Upload a new photo"',
      })
      return
    }
    if (references > MAX_REFERENCE_IMAGES) {
      ctx.addIssue({
        code: 'custom',
        path: ['images'],
        message: `Add at most ${MAX_REFERENCE_IMAGES} reference images`,
      })
    }
    if (mode === 'customize' && !value.prompt) {
      ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'Please describe the portrait you want' })
    }
    if (mode === 'template' && !value.prompt && !value.templatePrompt) {
      ctx.addIssue({ code: 'custom', path: ['templatePrompt'], message: 'The template has no prompt' })
    }
    if (mode !== 'customize' && references > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['images'],
        message: 'Reference images can only be added in Customize mode',
      })
    }
  })

/** The saved pets the form names, in order: `petId` (a list of one) first, then `petIds`. */
export const savedPetIds = (form: Pick<ImageGenerationForm, 'petId' | 'petIds'>) =>
  form.petId ? [form.petId, ...form.petIds] : form.petIds

/** How many pets the form asks for: its saved pets, or its photos a pet, else the one pet photo. */
export const petCountOf = (form: Pick<ImageGenerationForm, 'petId' | 'petIds' | 'petPhotos'>) =>
  Math.max(1, savedPetIds(form).length, form.petPhotos.length)

export type ImageGenerationForm = z.output<typeof imageGenerationSchema>
export type GenerationMode = 'guide' | 'customize' | 'template'

export function generationMode(form: Pick<ImageGenerationForm, 'style' | 'mode' | 'prompt'>): GenerationMode {
  if (form.style === 'template') return 'template'
  return form.mode ?? (form.prompt ? 'customize' : 'guide')
}
