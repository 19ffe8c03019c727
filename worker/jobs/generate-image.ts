import { correctionsFor, imageTaskParamsSchema, promptInputFor } from '#domain/generation/image-task-params.ts'
import { imageChainFromEnv } from '#worker/providers/from-env.ts'
import { generateWithFailover, type ProviderChain } from '#worker/providers/failover.ts'
import { getDb } from '#platform/db.server.ts'
import { buildImagePrompt } from '#domain/generation/prompt.ts'
import { noLimit } from '#worker/providers/shared-rate-limit.ts'
import { ProviderError, type ImageProvider } from '#worker/providers/types.ts'
import { generationJobHandler } from '#worker/generation/generation-job-handler.ts'
import type { GenerationProducer } from '#worker/generation/run-generation.ts'

/**
 * How an image task asks its providers: the prompt built from the stored params, every stored
 * image, the versions still missing, along the chain of providers (failover.ts): each provider's
 * shared rate limit counts one request for a provider that makes every version in one call
 * (OpenAI's `n`) and one per version otherwise (Gemini), and may grant fewer than asked. A bare
 * provider is a chain of one without breakers, `beforeRequest` its rate limit.
 */
export function imageGeneration(source: ImageProvider | ProviderChain, beforeRequest = noLimit): GenerationProducer {
  const chain = 'links' in source ? source : { links: [{ provider: source, beforeRequest }], breakers: null }
  return {
    jobName: 'generate_image',
    providerName: chain.links[0].provider.name,
    hdLongEdge: smallestHdEdge(chain),
    async produce(task, images, context, versions) {
      const parsed = imageTaskParamsSchema.safeParse(task.params)
      if (!parsed.success) throw new ProviderError('The task options are invalid.', { retryable: false })
      const params = parsed.data
      const prompt = [buildImagePrompt(promptInputFor(params, images.length)), correctionsFor(params)]
        .filter(Boolean)
        .join(' ')
      const guided = params.mode === 'customize' ? null : params.guided
      const request = { images, prompt, style: params.style, guided, seed: params.seed, quality: params.quality }
      return generateWithFailover(getDb(), chain, request, versions, context, {
        taskId: task.id,
        userId: task.user_id,
      })
    },
  }
}

export const generateImage = generationJobHandler({
  kind: 'image',
  producerFromEnv: (env, limitFor) => imageGeneration(imageChainFromEnv(env, limitFor)),
})

/**
 * The HD edge for a version whose provider is not known (stored by an earlier attempt): the smallest
 * of the chain's, so only a version short of every provider's HD is refunded. Each version answered
 * now is measured against its own provider's (madeBy.hdLongEdge).
 */
function smallestHdEdge(chain: ProviderChain): number | undefined {
  const edges = chain.links.flatMap(({ provider }) => (provider.hdLongEdge === undefined ? [] : [provider.hdLongEdge]))
  return edges.length > 0 ? Math.min(...edges) : undefined
}
