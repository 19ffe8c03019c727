import { parseWithZod } from '@conform-to/zod'
import { json } from '@remix-run/node'
import { getOptionalUser, hasRole, isOwner } from '#app/utils/auth.server.ts'
import type { User } from '#app/utils/db-schema.ts'
import type { DB } from '#app/utils/db.server.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { readMultipartForm } from '#app/utils/multipart.server.ts'
import {
  qualityLabels,
  videoCost,
  VIDEO_ACCESS_RESTRICTED,
  VIDEO_LOGIN_FIRST,
  videoGenerationSchema,
  type VideoGenerationForm,
} from './video-generation-form.ts'
import { PROMPT_MAX_LENGTH } from './prompt.ts'
import { submitPaidTask } from './task-submission.server.ts'
import type { VideoTaskParams } from './video-task-params.ts'

/** Videos are for superadmins and the OWNER_EMAIL account (spec section 6). */
export function canGenerateVideo(user: Pick<User, 'role' | 'email' | 'email_verified'>) {
  return hasRole(user, 'superadmin') || isOwner(user)
}

/**
 * The signed-in user who may generate videos. Otherwise a JSON 401 (guest) or 403 (any other
 * role), which the API answers as is and the page's ErrorBoundary turns into its message.
 */
export async function requireVideoUser(request: Request): Promise<User> {
  const user = await getOptionalUser(request)
  if (!user) throw json({ message: VIDEO_LOGIN_FIRST }, { status: 401 })
  if (!canGenerateVideo(user)) throw json({ message: VIDEO_ACCESS_RESTRICTED }, { status: 403 })
  return user
}

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
