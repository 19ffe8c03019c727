import type { User } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { submitPaidTask } from './task-submission.server.ts'
import { qualityLabels, videoCost, type VideoGenerationForm } from './video-generation-form.ts'
import type { VideoTaskParams } from './video-task-params.ts'

/** The video generator's submission (POST /api/async-video/generate, the /generate-video page): a validated form as a paid task. */

/**
 * Sniffs and re-encodes the image (image mode), then stores it, pays the configured cost of the
 * chosen quality and queues the task. Whatever the client claimed the cost to be is not read.
 */
export async function submitVideoGeneration(db: DB, user: Pick<User, 'id'>, form: VideoGenerationForm) {
  const params: VideoTaskParams = {
    mode: form.mode,
    prompt: form.prompt,
    aspectRatio: form.aspectRatio,
    resolution: form.resolution,
    quality: form.quality,
  }
  return submitPaidTask(
    db,
    {
      userId: user.id,
      kind: 'video',
      job: 'generate_video',
      source: 'generate',
      params,
      provider: getEnv().VIDEO_PROVIDER,
      cost: (settings) => videoCost(settings, form.quality),
      description: `Video generation (${qualityLabels[form.quality]})`,
    },
    form.image ? [form.image] : [],
    { typed: form.prompt },
  )
}
