import { z } from 'zod'
import { GENERATOR_STYLES, guidedOptionsSchema, type ImagePromptInput } from '#domain/generation/prompt.ts'
import { likenessCorrections, likenessFixSchema } from '#domain/generation/likeness-fix.ts'
import { petTraitsSchema } from './pet-traits.ts'

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
})

export type ImageTaskParams = z.infer<typeof imageTaskParamsSchema>

/** What the prompt builder needs, given how many images the task stored. */
export function promptInputFor(params: ImageTaskParams, imageCount: number): ImagePromptInput {
  switch (params.mode) {
    case 'guide':
      return { mode: 'guide', style: params.style, guided: params.guided, traits: params.traits }
    case 'customize':
      return {
        mode: 'customize',
        style: params.style,
        prompt: params.prompt,
        referenceImageCount: imageCount - 1,
        traits: params.traits,
      }
    case 'template':
      return {
        mode: 'template',
        style: params.style,
        templatePrompt: params.templatePrompt,
        prompt: params.prompt,
        traits: params.traits,
      }
  }
}

/** The corrections a likeness fix adds after the prompt ('' for any other task). */
export function correctionsFor(params: ImageTaskParams): string {
  return params.likenessFix ? likenessCorrections(params.likenessFix, params.traits) : ''
}
