import type { JobHelpers } from 'graphile-worker'
import { z } from 'zod'
import {
  completeTask,
  failTask,
  findResultKey,
  recordHeartbeat,
  recordProgress,
  requeueTask,
  startTaskAttempt,
} from '#app/models/tasks.server.ts'
import type { GenerationTask } from '#app/utils/db-schema.ts'
import { getDb } from '#app/utils/db.server.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { contentTypeForKey, getMediaBytes, getStorage, mediaKey } from '#app/utils/storage.server.ts'
import {
  ProviderError,
  type GeneratedMedia,
  type ImageInput,
  type ImageMimeType,
  type ProviderContext,
} from '#worker/providers/types.ts'
import { failureOutcome, observeTaskFinished, observeTaskStarted } from '#worker/task-metrics.ts'

/** What differs between an image and a video job: which provider runs, and how it is asked. */
export interface GenerationJob {
  providerName: string
  produce(task: GenerationTask, inputs: ImageInput[], context: ProviderContext): Promise<GeneratedMedia>
}

const payloadSchema = z.object({ taskId: z.string().uuid() })

const extensions: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
}

const INTERNAL_FAILURE = 'Something went wrong while generating. Please try again.'

/**
 * Runs one attempt of a generation task: processing with a heartbeat, the provider with its
 * progress written to the row, the result stored under a content-hashed key, completed.
 * A retryable failure puts the task back in the queue and throws, so graphile-worker retries with
 * its backoff; a final one (a refusal, bad input, or the last attempt) fails the task and refunds it.
 */
export async function runGeneration(payload: unknown, helpers: JobHelpers, job: GenerationJob) {
  const { taskId } = payloadSchema.parse(payload)
  const db = getDb()
  const task = await startTaskAttempt(db, taskId, job.providerName)
  if (!task) {
    helpers.logger.info(`task ${taskId} is finished or gone; nothing to do`)
    return
  }
  observeTaskStarted(task)

  const beat = () =>
    recordHeartbeat(db, taskId).catch((error) => helpers.logger.warn(`heartbeat of ${taskId} failed: ${error}`))
  const heartbeat = setInterval(beat, getEnv().TASK_HEARTBEAT_MS)
  try {
    const inputs = await loadInputs(task.input_keys)
    const media = await job.produce(task, inputs, {
      signal: helpers.abortSignal,
      onProgress: (percent) => recordProgress(db, taskId, percent),
    })
    const key = await storeResult(taskId, media)
    const completed = await completeTask(db, taskId, key)
    if (completed) observeTaskFinished(task, 'completed')
    else if ((await findResultKey(db, taskId)) !== key) {
      // Recovery gave up on this attempt and refunded it meanwhile, or a second run finished first
      // with other bytes: nothing points at this result. (Same bytes, same key: keep it.)
      await getStorage().delete(key)
    }
  } catch (error) {
    const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts
    const retryable = !(error instanceof ProviderError) || error.retryable
    helpers.logger.error(`task ${taskId} attempt ${helpers.job.attempts}/${helpers.job.max_attempts}: ${error}`)
    if (retryable && !lastAttempt) {
      await requeueTask(db, taskId)
      throw error
    }
    const reason = error instanceof ProviderError ? error.message : INTERNAL_FAILURE
    if (await db.transaction().execute((tx) => failTask(tx, taskId, reason))) {
      observeTaskFinished(task, failureOutcome(error))
    }
  } finally {
    clearInterval(heartbeat)
  }
}

async function loadInputs(keys: string[]): Promise<ImageInput[]> {
  const storage = getStorage()
  return Promise.all(
    keys.map(async (key) => {
      const bytes = await getMediaBytes(storage, key)
      if (!bytes) throw new ProviderError('The uploaded photo is no longer available.', { retryable: false })
      return { bytes, mimeType: contentTypeForKey(key) as ImageMimeType }
    }),
  )
}

async function storeResult(taskId: string, media: GeneratedMedia) {
  const ext = extensions[media.mimeType]
  if (!ext) throw new ProviderError('The provider answered with an unsupported file type.', { retryable: false })
  const key = mediaKey(`tasks/${taskId}`, media.bytes, ext)
  await getStorage().put(key, media.bytes, media.mimeType)
  return key
}
