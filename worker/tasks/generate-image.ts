import type { Task } from 'graphile-worker'
import { imageTaskParamsSchema, promptInputFor } from '#app/features/generation/image-task-params.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { imageProviderFromEnv } from '#worker/providers/from-env.ts'
import { buildImagePrompt } from '#app/features/generation/prompt.ts'
import { ProviderError, type ImageProvider } from '#worker/providers/types.ts'
import { runGeneration, type GenerationJob } from './run-generation.ts'

/** How an image task asks its provider: the prompt built from the stored params, every stored image. */
export function imageGeneration(provider: ImageProvider): GenerationJob {
  return {
    providerName: provider.name,
    produce(task, images, context) {
      const parsed = imageTaskParamsSchema.safeParse(task.params)
      if (!parsed.success) throw new ProviderError('The task options are invalid.', { retryable: false })
      const params = parsed.data
      const prompt = buildImagePrompt(promptInputFor(params, images.length))
      const guided = params.mode === 'customize' ? null : params.guided
      return provider.generate({ images, prompt, style: params.style, guided }, context)
    },
  }
}

let provider: ImageProvider | undefined

export const generateImage: Task = (payload, helpers) => {
  provider ??= imageProviderFromEnv(getEnv())
  return runGeneration(payload, helpers, imageGeneration(provider))
}
