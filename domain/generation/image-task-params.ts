import { z } from 'zod'
import { GENERATOR_STYLES, guidedOptionsSchema, type ImagePromptInput } from '#domain/generation/prompt.ts'
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
  /** What the photo check's vision model saw (absent offline, or on tasks from before the check). */
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
