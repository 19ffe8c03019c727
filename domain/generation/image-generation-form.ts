import { z } from 'zod'
import { GENERATOR_STYLES, guidedOptionsSchema, PROMPT_MAX_LENGTH } from '#domain/generation/prompt.ts'

/**
 * The fields of POST /api/async-image/generate (spec section 7), shared by the API, the /generate
 * page's action and its in-browser validation: `images` (the pet photo first, then up to five
 * references in Customize mode), `style`, and either `prompt` (Customize), the guided fields with
 * an empty prompt (Guide), or `templatePrompt`/`prompt`/`template_id` with style `template`.
 */

export const MAX_REFERENCE_IMAGES = 5
export const MAX_IMAGES = 1 + MAX_REFERENCE_IMAGES
export const MAX_IMAGE_MB = 10
const NO_PHOTO_MESSAGE = 'Please upload a pet photo first'

const freeText = (what: string) =>
  z.string().trim().max(PROMPT_MAX_LENGTH, `The ${what} must be at most ${PROMPT_MAX_LENGTH} characters`).default('')

const image = z
  .instanceof(File)
  .refine((file) => file.size <= MAX_IMAGE_MB * 1024 * 1024, `File size should not exceed ${MAX_IMAGE_MB}MB`)

export const imageGenerationSchema = z
  .object({
    // An empty file input still sends an empty part, which conform reads as undefined.
    images: z
      .array(image.optional(), { required_error: NO_PHOTO_MESSAGE })
      .transform((files) => files.filter((file) => file !== undefined))
      .pipe(
        z
          .array(image)
          .min(1, NO_PHOTO_MESSAGE)
          .max(MAX_IMAGES, `Upload the pet photo and at most ${MAX_REFERENCE_IMAGES} reference images`),
      ),
    style: z.enum(GENERATOR_STYLES, {
      errorMap: () => ({ message: `Unknown style: choose one of ${GENERATOR_STYLES.join(', ')}` }),
    }),
    /** Sent by the page, where it wins over a leftover prompt; without it the prompt decides. */
    mode: z.enum(['guide', 'customize']).optional(),
    prompt: freeText('prompt'),
    templatePrompt: freeText('template prompt'),
    template_id: z.string().trim().max(100).optional(),
    ...guidedOptionsSchema.shape,
  })
  .superRefine((value, ctx) => {
    const mode = generationMode(value)
    if (mode === 'customize' && !value.prompt) {
      ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'Please describe the portrait you want' })
    }
    if (mode === 'template' && !value.prompt && !value.templatePrompt) {
      ctx.addIssue({ code: 'custom', path: ['templatePrompt'], message: 'The template has no prompt' })
    }
    if (mode !== 'customize' && value.images.length > 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['images'],
        message: 'Reference images can only be added in Customize mode',
      })
    }
  })

export type ImageGenerationForm = z.output<typeof imageGenerationSchema>
export type GenerationMode = 'guide' | 'customize' | 'template'

export function generationMode(form: Pick<ImageGenerationForm, 'style' | 'mode' | 'prompt'>): GenerationMode {
  if (form.style === 'template') return 'template'
  return form.mode ?? (form.prompt ? 'customize' : 'guide')
}
