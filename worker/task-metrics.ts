import type { GenerationTask } from '#platform/db-schema.ts'
import { getMetrics, providerLabel, type TaskOutcome } from '#platform/metrics.server.ts'
import { ProviderError } from '#worker/providers/types.ts'

/** What a generation did, for the metrics: how long it queued, how long it ran, how it ended. */
export function observeTaskStarted(task: GenerationTask) {
  if (task.attempts !== 1 || !task.started_at) return // retries do not queue again from submission
  const seconds = (task.started_at.getTime() - task.created_at.getTime()) / 1000
  getMetrics().taskQueueWait.observe(labelsOf(task), Math.max(0, seconds))
}

export function observeTaskFinished(task: GenerationTask, outcome: TaskOutcome) {
  const metrics = getMetrics()
  metrics.tasksFinished.inc({ ...labelsOf(task), outcome })
  if (task.started_at) metrics.taskDuration.observe(labelsOf(task), (Date.now() - task.started_at.getTime()) / 1000)
}

/** A content-policy refusal is `refused`; anything else that ends a task unsuccessfully is `failed`. */
export function failureOutcome(error: unknown): TaskOutcome {
  return error instanceof ProviderError && error.refused ? 'refused' : 'failed'
}

const labelsOf = (task: GenerationTask) => ({ kind: task.kind, provider: providerLabel(task.provider) })
