import type { JobHelpers } from 'graphile-worker'
import { z } from 'zod'
import { countsTimedOutCall, decideAfterFailure } from '#domain/generation/failure-policy.ts'
import { jobKinds } from '#platform/jobs.server.ts'
import {
  checkAgainLater,
  recordTimedOutCall,
  waitForRoom,
  type LaterRun,
} from '#domain/generation/task-waits.server.ts'
import {
  completeTask,
  failTask,
  isResultOrphaned,
  recordHeartbeat,
  recordProgress,
  requeueTask,
  startTaskAttempt,
} from '#domain/generation/task-states.server.ts'
import type { GenerationTask } from '#platform/db-schema.ts'
import { isDatabasePoolExhausted, isDatabaseUnavailable } from '#platform/database-outage.server.ts'
import { getDb, waitForDatabase } from '#platform/db.server.ts'
import { getWorkerEnv } from '#worker/env.ts'
import { contentTypeForKey, getMediaBytes, getStorage } from '#platform/storage.server.ts'
import { failureOutcome, observeTaskFinished, observeTaskStarted } from '#worker/task-metrics.ts'
import { failureOf, PhotoGoneError } from './failure-refunds.ts'
import { findStoredVersions, missingVersions, storeVersion } from './task-results.ts'
import type { DeliveredVersion } from '#domain/generation/task-version.ts'
import type { RefundReason } from '#domain/credits/refund-reasons.ts'
import {
  ProviderError,
  type GeneratedImages,
  type ImageInput,
  type ImageMimeType,
  type ProviderContext,
} from '#worker/providers/types.ts'

/** A remote operation is still running: the job looks at it again after this long. */
export interface CheckAgain {
  checkAgainInMs: number
}

/** What a job's provider call gets: the provider context, plus the task it works for. */
export interface GenerationContext extends ProviderContext {
  /** Milliseconds since the task's first attempt, less the time it waited for room. */
  elapsedMs: number
}

/**
 * How one kind of generation (an image, a video, an upscale) is produced: which provider runs, and how it is asked for the
 * `versions` (indexes) the task still lacks. It may answer fewer (the rest are asked for again).
 */
export interface GenerationProducer {
  jobName: LaterRun['jobName']
  providerName: string
  /** Image jobs: the long edge an HD version must have, or it is refunded HD's difference. */
  hdLongEdge?: number
  produce(
    task: GenerationTask,
    inputs: ImageInput[],
    context: GenerationContext,
    versions: number[],
  ): Promise<GeneratedImages | CheckAgain>
  /** What the kind adds to its stored versions before the task completes (an image's title). */
  finishVersions?(task: GenerationTask, versions: DeliveredVersion[]): Promise<DeliveredVersion[]>
}

const payloadSchema = z.object({ taskId: z.string().uuid() })

/** Progress is for show: a provider's answer is never held back longer than this for its write. */
const PROGRESS_WAIT_MS = 1_000

/**
 * Runs one attempt of a generation task: processing with a heartbeat, the provider with its
 * progress written to the row, each version stored under its own key before the task is
 * completed (task-results.ts); an attempt asks only for the versions not stored yet.
 * A provider that delivers only some versions fails the call for the missing ones.
 * An operation still rendering re-schedules the job and frees the slot (see task-waits.server.ts).
 * What follows a failed call (wait, retry, keep what was made and refund the rest, or fail and
 * refund) is the failure policy's decision (domain/generation/failure-policy.ts); this module only
 * carries it out: a retry puts the task back in the queue and throws, so graphile-worker retries
 * with its backoff.
 *
 * A database that goes away mid-attempt is no failure: the attempt waits for it and runs again in
 * the same job (finding its stored result, if the provider had answered), so graphile-worker never
 * has to record a failure while the database is unreachable. So does one that hangs: its queries
 * time out (an outage), and while they hang they hold the pool's connections, so the others find
 * the pool full: that too is waited out here, never an attempt used up or a stored answer failed.
 */
export async function runGeneration(payload: unknown, helpers: JobHelpers, producer: GenerationProducer) {
  const { taskId } = payloadSchema.parse(payload)
  for (;;) {
    try {
      return await runAttempt(taskId, helpers, producer)
    } catch (error) {
      if (!isDatabaseUnavailable(error) || helpers.abortSignal.aborted) throw error
      helpers.logger.warn(`task ${taskId}: the database went away during the attempt; resuming when it is back`)
      // A full pool fails this wait too, after the pool's timeout: the attempt then simply runs again.
      await waitForDatabase().catch((waitError: unknown) => {
        if (!isDatabasePoolExhausted(waitError)) throw waitError
      })
    }
  }
}

async function runAttempt(taskId: string, helpers: JobHelpers, producer: GenerationProducer) {
  const db = getDb()
  const task = await startTaskAttempt(db, taskId, producer.providerName)
  if (!task) {
    helpers.logger.info(`task ${taskId} is finished or gone; nothing to do`)
    return
  }
  observeTaskStarted(task)
  const later = (delayMs: number): LaterRun => ({
    taskId,
    jobName: producer.jobName,
    delayMs,
    attemptsLeft: helpers.job.max_attempts - helpers.job.attempts + 1,
  })

  // One beat at a time: beats that pile up behind a database that hangs would fill the pool.
  let beating = false
  const beat = () => {
    if (beating) return
    beating = true
    recordHeartbeat(db, taskId)
      .catch((error) => helpers.logger.warn(`heartbeat of ${taskId} failed: ${error}`))
      .finally(() => (beating = false))
  }
  const heartbeat = setInterval(beat, getWorkerEnv().TASK_HEARTBEAT_MS)
  const delivered: DeliveredVersion[] = []
  try {
    delivered.push(...(await findStoredVersions(task)))
    if (delivered.length > 0) helpers.logger.info(`task ${taskId}: using ${delivered.length} version(s) stored earlier`)
    let missing = missingVersions(task.variants, delivered)
    let inputs: ImageInput[] | undefined
    while (missing.length > 0) {
      inputs ??= await loadInputs(task.input_keys)
      const started = task.started_at?.getTime() ?? Date.now()
      const result = await producer.produce(
        task,
        inputs,
        {
          signal: helpers.abortSignal,
          onProgress: (percent) => atMost(PROGRESS_WAIT_MS, recordProgress(db, taskId, percent)),
          elapsedMs: Math.max(0, Date.now() - started - task.waited_ms),
        },
        missing,
      )
      if ('checkAgainInMs' in result) {
        await checkAgainLater(db, later(result.checkAgainInMs))
        return
      }
      const made = result.images.slice(0, missing.length)
      for (const [at, media] of made.entries()) {
        delivered.push({ ...(await storeVersion(taskId, missing[at], media)), ...result.madeBy })
      }
      if (result.shortfall !== undefined) throw result.shortfall
      if (made.length === 0) throw new ProviderError('The provider answered without an image.', { retryable: false })
      missing = missing.slice(made.length)
    }
    await finish(task, delivered, producer)
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error
    await settleFailure(error, { task, helpers, producer, later, delivered })
  } finally {
    clearInterval(heartbeat)
  }
}

/**
 * Completes the task with the versions it has; `shortfall` is why the others are missing (each is
 * refunded). Files of a task that recovery failed meanwhile are removed: nothing points at them.
 */
async function finish(
  task: GenerationTask,
  delivered: DeliveredVersion[],
  producer: Pick<GenerationProducer, 'hdLongEdge' | 'finishVersions'>,
  shortfall?: RefundReason,
) {
  const db = getDb()
  const versions = producer.finishVersions ? await producer.finishVersions(task, delivered) : delivered
  if (await completeTask(db, task.id, versions, { missingReason: shortfall, hdLongEdge: producer.hdLongEdge })) {
    observeTaskFinished(task, 'completed')
    return
  }
  for (const { key, title } of versions) {
    if (await isResultOrphaned(db, task.id, key)) await getStorage().deleteMany([key, ...(title ? [title.key] : [])])
  }
}

/**
 * After a failed attempt: carries out the failure policy's decision (domain/generation/failure-policy.ts):
 * wait (a busy or unreachable provider, no attempt used), retry (graphile-worker's backoff), keep
 * the versions stored and refund the rest, or fail and refund.
 */
async function settleFailure(
  error: unknown,
  {
    task,
    helpers,
    producer,
    later,
    delivered,
  }: {
    task: GenerationTask
    helpers: JobHelpers
    producer: GenerationProducer
    later: (delayMs: number) => LaterRun
    /** Versions stored so far. */
    delivered: DeliveredVersion[]
  },
) {
  const db = getDb()
  const taskId = task.id
  const failure = failureOf(error)
  if (failure.class === 'call') logFailedCall(error, task, helpers, producer)
  const maxWaitMs = getWorkerEnv().TASK_MAX_WAIT_MS
  const known = {
    failure,
    attempt: helpers.job.attempts,
    maxAttempts: helpers.job.max_attempts,
    kind: jobKinds[producer.jobName].generation,
    storedVersions: delivered.length,
    waitedMs: task.waited_ms,
    maxWaitMs,
    jitterMs: Math.round(Math.random() * 1000),
  }
  const timedOutCalls = countsTimedOutCall(known) ? await recordTimedOutCall(db, taskId) : 0
  const decision = decideAfterFailure({ ...known, timedOutCalls })
  const message = error instanceof Error ? error.message : String(error)
  switch (decision.action) {
    case 'wait': {
      const outcome = await waitForRoom(db, later(decision.delayMs), maxWaitMs, decision.unreachable)
      const next =
        outcome === 'waiting' ? `Next try in ${decision.delayMs} ms.` : 'Waited too long: failed and refunded.'
      helpers.logger.info(`task ${taskId}: ${message} ${next}`)
      return
    }
    case 'retry':
      await requeueTask(db, taskId)
      throw error
    case 'keep':
      if (failure.class !== 'call') {
        helpers.logger.info(`task ${taskId}: ${message} Waited too long: completed with the versions it has.`)
      }
      return finish(task, delivered, producer, decision.refundReason)
    case 'fail':
      if (await db.transaction().execute((tx) => failTask(tx, taskId, decision.message, decision.refundReason))) {
        observeTaskFinished(task, failureOutcome(error))
      }
  }
}

function logFailedCall(error: unknown, task: GenerationTask, helpers: JobHelpers, producer: GenerationProducer) {
  if (error instanceof ProviderError && error.quotaExhausted) {
    helpers.logger.error(
      `OPERATOR: ${producer.providerName} quota exhausted, task ${task.id} failed and refunded: ${error.message}`,
    )
  } else {
    helpers.logger.error(`task ${task.id} attempt ${helpers.job.attempts}/${helpers.job.max_attempts}: ${error}`)
  }
}

async function loadInputs(keys: string[]): Promise<ImageInput[]> {
  const storage = getStorage()
  return Promise.all(
    keys.map(async (key) => {
      const bytes = await getMediaBytes(storage, key)
      if (!bytes) throw new PhotoGoneError()
      return { bytes, mimeType: contentTypeForKey(key) as ImageMimeType }
    }),
  )
}

/** Waits for `write` at most `ms`; a failed write is the heartbeat's to repeat, never the attempt's failure. */
async function atMost(ms: number, write: Promise<void>) {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))
  await Promise.race([write.catch(() => {}), late])
  clearTimeout(timer)
}
