import { saveProviderOperation } from '#domain/generation/task-waits.server.ts'
import { videoTaskParamsSchema } from '#domain/generation/video-task-params.ts'
import { getDb } from '#platform/db.server.ts'
import { videoProviderFromEnv } from '#worker/providers/from-env.ts'
import { noLimit } from '#worker/providers/shared-rate-limit.ts'
import {
  ProviderError,
  type VideoOperationProvider,
  type VideoProvider,
  type VideoRequest,
} from '#worker/providers/types.ts'
import { generationJobHandler } from '#worker/generation/generation-job-handler.ts'
import type { GenerationProducer } from '#worker/generation/run-generation.ts'

/**
 * How a video task asks its provider: the stored options, and the stored photo in image mode.
 * A local renderer makes the video within the job. A remote operation (Veo) is started once,
 * its name written on the task before anything else happens, and then looked at once per run:
 * not done yet, the job comes back after the poll interval without holding a slot meanwhile.
 */
export function videoGeneration(
  provider: VideoProvider | VideoOperationProvider,
  beforeRequest = noLimit,
): GenerationProducer {
  return {
    jobName: 'generate_video',
    providerName: provider.name,
    async produce(task, images, context) {
      if ('generate' in provider)
        return { images: [await provider.generate(videoRequest(task.params, images[0]), context)] }

      let operation = task.provider_operation
      if (!operation) {
        await beforeRequest()
        operation = await provider.start(videoRequest(task.params, images[0]), context)
        await saveProviderOperation(getDb(), task.id, operation)
        await context.onProgress(5)
      }
      const state = await provider.check(operation, context.elapsedMs, context)
      if (state.done) return { images: [state.media] }
      await context.onProgress(state.progress)
      return { checkAgainInMs: provider.pollIntervalMs }
    },
  }
}

function videoRequest(params: unknown, image: VideoRequest['image'] | undefined): VideoRequest {
  const parsed = videoTaskParamsSchema.safeParse(params)
  if (!parsed.success) throw new ProviderError('The task options are invalid.', { retryable: false })
  return { ...parsed.data, image: image ?? null }
}

export const generateVideo = generationJobHandler({
  kind: 'video',
  producerFromEnv: (env, limitFor) => {
    const provider = videoProviderFromEnv(env)
    return videoGeneration(provider, limitFor(provider, env.VIDEO_PROVIDER_RPM))
  },
})
