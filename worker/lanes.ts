/**
 * The worker's lanes: one graphile-worker runner per kind of work, each with its own concurrency,
 * each taking only its own jobs from the queue (the lane of each job is in jobKinds,
 * platform/jobs.server.ts). A remote provider takes 20-120 s per portrait while the CPU sits idle,
 * so generation gets many slots (IMAGE_CONCURRENCY, VIDEO_CONCURRENCY); emails and maintenance
 * (WORKER_CONCURRENCY) never wait behind generation.
 */
import type { TaskList } from 'graphile-worker'
import type { WorkerEnv } from '#worker/env.ts'
import { jobKinds, type JobName, type WorkerLane } from '#platform/jobs.server.ts'
import { crontab, jobHandlers } from './jobs/index.ts'

export interface Lane {
  name: WorkerLane
  concurrency: number
  taskList: TaskList
  crontab?: string
}

type LaneEnv = Pick<WorkerEnv, 'IMAGE_CONCURRENCY' | 'VIDEO_CONCURRENCY' | 'WORKER_CONCURRENCY' | 'UPSCALE_CONCURRENCY'>

export function lanes(env: LaneEnv): Lane[] {
  return [
    lane('image', env.IMAGE_CONCURRENCY),
    lane('video', env.VIDEO_CONCURRENCY),
    // "Make it bigger" runs a model on the CPU: few at once, apart from the waiting on providers.
    lane('upscale', env.UPSCALE_CONCURRENCY),
    // Emails and maintenance, with the recurring jobs.
    { ...lane('background', env.WORKER_CONCURRENCY), crontab },
  ]
}

function lane(name: WorkerLane, concurrency: number): Lane {
  const names = (Object.keys(jobHandlers) as JobName[]).filter((job) => jobKinds[job].lane === name)
  return { name, concurrency, taskList: Object.fromEntries(names.map((job) => [job, jobHandlers[job]])) as TaskList }
}
