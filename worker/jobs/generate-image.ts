import {
  correctionsFor,
  imageTaskParamsSchema,
  petsOf,
  promptInputFor,
  type ImageTaskParams,
} from '#domain/generation/image-task-params.ts'
import type { DeliveredVersion } from '#domain/generation/task-version.ts'
import { storeTitledCopy } from '#domain/titles/titled-copy.server.ts'
import { getLogger } from '#platform/logger.server.ts'
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
      const request = {
        images,
        petPhotoCounts: petsOf(params).map((pet) => pet.photoCount),
        prompt,
        style: params.style,
        guided,
        seed: params.seed,
        quality: params.quality,
      }
      return generateWithFailover(getDb(), chain, request, versions, context, {
        taskId: task.id,
        userId: task.user_id,
      })
    },
    finishVersions: (task, versions) => {
      const parsed = imageTaskParamsSchema.safeParse(task.params)
      return parsed.success ? withTitles(task.id, parsed.data, versions) : Promise.resolve(versions)
    },
  }
}

/**
 * The title the run asked for, set on each version before the task completes (issue 41). A version
 * the title cannot be set on (it was checked drawable when paid for) is delivered plain, never failed.
 */
async function withTitles(taskId: string, params: ImageTaskParams, versions: DeliveredVersion[]) {
  const title = params.title
  if (!title) return versions
  const titled: DeliveredVersion[] = []
  for (const version of versions) {
    try {
      titled.push({ ...version, title: { ...title, key: await storeTitledCopy(version.key, title) } })
    } catch (error) {
      getLogger().warn({ taskId, index: version.index, err: error }, 'the title could not be set; delivered plain')
      titled.push(version)
    }
  }
  return titled
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
