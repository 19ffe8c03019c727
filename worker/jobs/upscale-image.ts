import sharp from 'sharp'
import { upscaleParamsSchema } from '#domain/generation/upscale-params.ts'
import { ProviderError } from '#worker/providers/types.ts'
import { upscaleImage as enlarge } from '#worker/upscale/upscaler.ts'
import { UpscaleError } from '#worker/generation/failure-refunds.ts'
import { generationJobHandler } from '#worker/generation/generation-job-handler.ts'
import type { GenerationProducer } from '#worker/generation/run-generation.ts'

/**
 * "Make it bigger": the upscale task's one input is the version it enlarges (its input key), run
 * through the upscaler (worker/upscale) like a provider, so storing, completing, retries, refunds
 * and the live stream are those of every task (run-generation.ts). Decisions 0036 and 0047.
 */
function upscaleGeneration(modelDir: string | undefined, threads: number): GenerationProducer {
  return {
    jobName: 'upscale_image',
    providerName: 'upscaler',
    async produce(task, inputs, context) {
      const parsed = upscaleParamsSchema.safeParse(task.params)
      if (!parsed.success || !inputs[0])
        throw new ProviderError('The upscale options are invalid.', { retryable: false })
      await sharp(inputs[0].bytes)
        .metadata()
        .catch((error: unknown) => {
          throw new UpscaleError(error, { retryable: false })
        })
      try {
        const made = await enlarge(inputs[0].bytes, parsed.data.upscale.scale, {
          modelDir,
          threads,
          signal: context.signal,
          onProgress: (percent) => void context.onProgress(percent),
        })
        return {
          images: [{ bytes: made.bytes, mimeType: made.mimeType }],
          madeBy: { provider: 'upscaler', model: made.model },
        }
      } catch (error) {
        throw new UpscaleError(error, { retryable: true })
      }
    },
  }
}

export const upscaleImage = generationJobHandler({
  kind: 'image',
  producerFromEnv: (env) => upscaleGeneration(env.UPSCALE_MODEL_DIR, env.UPSCALE_THREADS),
})
