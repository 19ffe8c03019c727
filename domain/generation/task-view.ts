import type { TaskKind, TaskSource, TaskStatus } from '#platform/db-schema.ts'
import type { PrintReadiness } from '#domain/media/print-readiness.ts'
import type { VersionTitle } from '#domain/titles/title-options.ts'

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
  /** The favourite version's file (the first by default); an image's with how large it prints. */
  result: { imageUrl?: string; videoUrl?: string; print?: PrintReadiness | null } | null
  /** The task a re-roll or likeness fix was made from (decision 0030). */
  parentTaskId: string | null
  /** Image tasks: every delivered version (an addition to the spec), and how many were asked for. */
  images?: TaskImage[]
  variants?: number
  /** Image tasks: the version that stands for the task in history and downloads. */
  favouriteIndex?: number
  error: string | null
  /** The task's refund lines, as credit history words them (which version, and why). */
  refunds: string[]
  /** The saved pet's or template's name, for download names; null for neither. */
  subject: string | null
  /** Image tasks of several pets: each pet's name (or "Pet 2"), in order, for the likeness fix's "which pet" (issue 41). */
  pets?: string[]
  description: string
  createdAt: string
  submittedAt: string
}

/** One delivered version of an image task; `index` counts from 0. Sizes are unknown for results made before versions. */
export interface TaskImage {
  index: number
  /** The version as the pages show it: with its title when it has one (issue 41). */
  url: string
  /** A titled version's file without the title. */
  plainUrl?: string
  title?: VersionTitle
  width: number | null
  height: number | null
  /** How large it prints (decision 0035); null when its size is unknown. */
  print: PrintReadiness | null
  /** Which provider and model made it (decision 0033); null when not recorded (older versions). */
  provider: string | null
  model: string | null
  /** An upscale made with sharp's Lanczos because the model could not load (decision 0036). */
  enlargedWithoutModel?: boolean
}

type KnownAfterFirstRead =
  | 'queuePosition'
  | 'totalInQueue'
  | 'runningTasks'
  | 'maxConcurrentTasks'
  | 'result'
  | 'error'
  | 'refunds'
  | 'parentTaskId'
  | 'subject'

/** A task in the browser: the view, whose queue figures and result arrive with its first read. */
export type ClientTask = Omit<TaskView, KnownAfterFirstRead> & Partial<Pick<TaskView, KnownAfterFirstRead>>
