/**
 * The worker's lanes: one graphile-worker runner per kind of work, each with its own concurrency,
 * each taking only its own jobs from the queue. A remote provider takes 20-120 s per portrait while
 * the CPU sits idle, so generation gets many slots (IMAGE_CONCURRENCY, VIDEO_CONCURRENCY); emails
 * and maintenance (WORKER_CONCURRENCY) never wait behind generation.
 */
import type { TaskList } from 'graphile-worker'
import type { WorkerEnv } from '#worker/env.ts'
import type { JobName } from '#platform/jobs.server.ts'
import { crontab, jobHandlers } from './jobs/index.ts'

export interface Lane {
  name: string
  concurrency: number
  taskList: TaskList
  crontab?: string
}

type LaneEnv = Pick<WorkerEnv, 'IMAGE_CONCURRENCY' | 'VIDEO_CONCURRENCY' | 'WORKER_CONCURRENCY' | 'UPSCALE_CONCURRENCY'>

export function lanes(env: LaneEnv): Lane[] {
  return [imageLane(env), videoLane(env), upscaleLane(env), backgroundLane(env)]
}

function imageLane(env: LaneEnv): Lane {
  return { name: 'image', concurrency: env.IMAGE_CONCURRENCY, taskList: tasks(['generate_image']) }
}

function videoLane(env: LaneEnv): Lane {
  return { name: 'video', concurrency: env.VIDEO_CONCURRENCY, taskList: tasks(['generate_video']) }
}

/** "Make it bigger" runs a model on the CPU: few at once, apart from the waiting on providers. */
function upscaleLane(env: LaneEnv): Lane {
  return { name: 'upscale', concurrency: env.UPSCALE_CONCURRENCY, taskList: tasks(['upscale_image']) }
}

/** Emails and maintenance, with the recurring jobs. */
function backgroundLane(env: LaneEnv): Lane {
  const generation: JobName[] = ['generate_image', 'generate_video', 'upscale_image']
  const rest = (Object.keys(jobHandlers) as JobName[]).filter((name) => !generation.includes(name))
  return { name: 'background', concurrency: env.WORKER_CONCURRENCY, taskList: tasks(rest), crontab }
}

function tasks(names: JobName[]): TaskList {
  return Object.fromEntries(names.map((name) => [name, jobHandlers[name]])) as TaskList
}
