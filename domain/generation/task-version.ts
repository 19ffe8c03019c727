/**
 * One version of a task's result (decision 0029), in one shape from the worker to the page. The
 * worker makes it from the provider's answer as it stores the file (worker/generation/task-results.ts),
 * completeTask keeps it as a task_versions row, the task reads give it back as it was kept, and
 * user-tasks.server.ts turns it into the page's TaskImage (task-view.ts): two conversions.
 */
import type { VersionTitle } from '#domain/titles/title-options.ts'

export interface TaskVersion {
  index: number
  key: string
  /** Unknown for a video, for a picture that could not be read, and for results made before versions. */
  width: number | null
  height: number | null
  /** Who made it and with which model (decisions 0033, 0036); null when not recorded (older versions). */
  provider: string | null
  model: string | null
  /** The title set on it and its titled copy's file (issue 41); null without one. */
  title: (VersionTitle & { key: string }) | null
}

/**
 * A version as the worker hands it to completeTask: what it does not know is left out (a version
 * stored by an earlier attempt is recorded as made by the task's provider), and the HD edge of the
 * provider that made it (decision 0035), which is measured against, not kept.
 */
export type DeliveredVersion = Pick<TaskVersion, 'index' | 'key'> & Partial<TaskVersion> & { hdLongEdge?: number }
