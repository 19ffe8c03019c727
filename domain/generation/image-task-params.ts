import { z } from 'zod'
import { GENERATOR_STYLES, guidedOptionsSchema, type ImagePromptInput } from '#domain/generation/prompt.ts'
import { likenessCorrections, likenessFixSchema, petTraitsSchema } from '#domain/generation/likeness-fix.ts'

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
  /** The pet's traits, when the photo check or a saved pet found them. */
  traits: petTraitsSchema.optional(),
})

export type ImageTaskParams = z.infer<typeof imageTaskParamsSchema>

/** What the prompt builder needs, given how many images the task stored. */
export function promptInputFor(params: ImageTaskParams, imageCount: number): ImagePromptInput {
  switch (params.mode) {
    case 'guide':
      return { mode: 'guide', style: params.style, guided: params.guided }
    case 'customize':
      return { mode: 'customize', style: params.style, prompt: params.prompt, referenceImageCount: imageCount - 1 }
    case 'template':
      return { mode: 'template', style: params.style, templatePrompt: params.templatePrompt, prompt: params.prompt }
  }
}

/** The corrections a likeness fix adds after the prompt ('' for any other task). */
export function correctionsFor(params: ImageTaskParams): string {
  return params.likenessFix ? likenessCorrections(params.likenessFix, params.traits) : ''
}
