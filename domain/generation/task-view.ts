import type { TaskKind, TaskSource, TaskStatus } from '#platform/db-schema.ts'

/** Results (and failed tasks' uploads) are kept this long, then expire_media removes them. */
export const MEDIA_RETENTION_DAYS = 10

/**
 * A generation task as the task API answers it and the browser keeps it (spec section 3, Task): the
 * one shape both sides use. `type` is the task's kind, spelt as the database spells it; where a
 * task came from (the generator or a gallery template) is its `source`.
 */
export interface TaskView {
  id: string
  type: TaskKind
  source: TaskSource
  status: TaskStatus
  progress: number
  queuePosition: number
  totalInQueue: number
  runningTasks: number
  maxConcurrentTasks: number
  /** `madeBy`: the provider and model that made an image (decision 0033), when recorded. */
  result: { imageUrl?: string; videoUrl?: string; madeBy?: { provider: string; model: string | null } } | null
  /** The task a re-roll or likeness fix was made from (decision 0030). */
  parentTaskId: string | null
  error: string | null
  description: string
  createdAt: string
  submittedAt: string
}

type KnownAfterFirstRead =
  'queuePosition' | 'totalInQueue' | 'runningTasks' | 'maxConcurrentTasks' | 'result' | 'error' | 'parentTaskId'

/** A task in the browser: the view, whose queue figures and result arrive with its first read. */
export type ClientTask = Omit<TaskView, KnownAfterFirstRead> & Partial<Pick<TaskView, KnownAfterFirstRead>>
