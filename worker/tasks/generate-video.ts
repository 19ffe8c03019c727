import type { Task } from 'graphile-worker'
import { videoTaskParamsSchema } from '#app/features/generation/video-task-params.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { videoProviderFromEnv } from '#worker/providers/from-env.ts'
import { ProviderError, type VideoProvider } from '#worker/providers/types.ts'
import { runGeneration, type GenerationJob } from './run-generation.ts'

/** How a video task asks its provider: the stored options, and the stored photo in image mode. */
export function videoGeneration(provider: VideoProvider): GenerationJob {
  return {
    providerName: provider.name,
    produce(task, images, context) {
      const parsed = videoTaskParamsSchema.safeParse(task.params)
      if (!parsed.success) throw new ProviderError('The task options are invalid.', { retryable: false })
      return provider.generate({ ...parsed.data, image: images[0] ?? null }, context)
    },
  }
}

let provider: VideoProvider | undefined

export const generateVideo: Task = (payload, helpers) => {
  provider ??= videoProviderFromEnv(getEnv())
  return runGeneration(payload, helpers, videoGeneration(provider))
}
