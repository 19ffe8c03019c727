import { parseWithZod } from '@conform-to/zod'
import type { User } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { readMultipartForm } from '#app/utils/multipart.server.ts'
import { qualityLabels, videoCost, videoGenerationSchema, type VideoGenerationForm } from './video-generation-form.ts'
import { PROMPT_MAX_LENGTH } from './prompt.ts'
import { submitPaidTask } from './task-submission.server.ts'
import type { VideoTaskParams } from './video-task-params.ts'

/** Reads the multipart form within its limits (one image of 10 MB, a short prompt; 413/400 otherwise) and validates it. */
export async function readVideoGenerationForm(request: Request) {
  const formData = await readMultipartForm(request, { maxFiles: 1, maxTextFieldBytes: PROMPT_MAX_LENGTH * 4 })
  return parseWithZod(formData, { schema: videoGenerationSchema })
}

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
      source: 'generate',
      params,
      provider: getEnv().VIDEO_PROVIDER,
      cost: (settings) => videoCost(settings, form.quality),
      description: `Video generation (${qualityLabels[form.quality]})`,
    },
    form.image ? [form.image] : [],
  )
}
