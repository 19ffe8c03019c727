import { z } from 'zod'
import { GENERATOR_STYLES, guidedOptionsSchema, type ImagePromptInput } from '#domain/generation/prompt.ts'
import { petTraitsSchema } from '#domain/generation/pet-traits.ts'

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
  /** The saved pet the task was made with: its photos lead the task's images (migration 0037). */
  petId: z.string().optional(),
  petPhotoCount: z.number().int().min(1).optional(),
  traits: petTraitsSchema.optional(),
})

export type ImageTaskParams = z.infer<typeof imageTaskParamsSchema>

/** What the prompt builder needs, given how many images the task stored. */
export function promptInputFor(params: ImageTaskParams, imageCount: number): ImagePromptInput {
  const petPhotoCount = params.petPhotoCount ?? 1
  // Only a task made with a saved pet says more about its pet.
  const pet = params.traits ? { traits: params.traits, petPhotoCount } : {}
  switch (params.mode) {
    case 'guide':
      return { mode: 'guide', style: params.style, guided: params.guided, ...pet }
    case 'customize':
      return {
        mode: 'customize',
        style: params.style,
        prompt: params.prompt,
        referenceImageCount: imageCount - petPhotoCount,
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
