import { correctionsFor, imageTaskParamsSchema, promptInputFor } from '#domain/generation/image-task-params.ts'
import { imageProviderFromEnv } from '#worker/providers/from-env.ts'
import { buildImagePrompt } from '#domain/generation/prompt.ts'
import { noLimit } from '#worker/providers/shared-rate-limit.ts'
import { ProviderError, type ImageProvider } from '#worker/providers/types.ts'
import { generationTask } from './generation-task.ts'
import type { GenerationJob } from './run-generation.ts'

/**
 * How an image task asks its provider: the prompt built from the stored params, every stored
 * image, the versions still missing. `beforeRequest` runs right before the (paid) provider call:
 * the shared rate limit, which counts one request for a provider that makes every version in one
 * call (OpenAI's `n`) and one per version otherwise (Gemini), and may grant fewer than asked.
 */
export function imageGeneration(provider: ImageProvider, beforeRequest = noLimit): GenerationJob {
  return {
    jobName: 'generate_image',
    providerName: provider.name,
    hdLongEdge: provider.hdLongEdge,
    async produce(task, images, context, versions) {
      const parsed = imageTaskParamsSchema.safeParse(task.params)
      if (!parsed.success) throw new ProviderError('The task options are invalid.', { retryable: false })
      const params = parsed.data
      const prompt = [buildImagePrompt(promptInputFor(params, images.length)), correctionsFor(params)]
        .filter(Boolean)
        .join(' ')
      const guided = params.mode === 'customize' ? null : params.guided
      const granted = await beforeRequest(provider.requestPerVersion ? versions.length : 1)
      const asked = provider.requestPerVersion ? versions.slice(0, granted) : versions
      return provider.generate(
        { images, prompt, style: params.style, guided, versions: asked, seed: params.seed, quality: params.quality },
        context,
      )
    },
  }
}

export const generateImage = generationTask({
  kind: 'image',
  providerFromEnv: imageProviderFromEnv,
  rpm: (env) => env.IMAGE_PROVIDER_RPM,
  job: imageGeneration,
})
