import { jobKinds, type JobName } from '#platform/jobs.server.ts'
import { crontab, jobHandlers } from '#worker/jobs/index.ts'
import { lanes } from '#worker/lanes.ts'

const workerLanes = lanes({
  IMAGE_CONCURRENCY: 16,
  VIDEO_CONCURRENCY: 8,
  UPSCALE_CONCURRENCY: 1,
  WORKER_CONCURRENCY: 2,
})

test('every kind of job has a handler, run by the lane its row names and by no other', () => {
  expect(Object.keys(jobHandlers).sort()).toEqual(Object.keys(jobKinds).sort())
  for (const name of Object.keys(jobKinds) as JobName[]) {
    const runners = workerLanes.filter((lane) => name in lane.taskList).map((lane) => lane.name)
    expect(runners, name).toEqual([jobKinds[name].lane])
  }
})

test("the crontab: each scheduled job once, graphile-worker's defaults (25 attempts, priority 0) unsaid", () => {
  expect(crontab.split('\n')).toEqual([
    '0 3 * * * cleanup_sessions',
    '30 3 * * * cleanup_auth_records',
    '0 * * * * expire_media',
    '* * * * * recover_stalled_tasks',
    '5,35 * * * * rollup_analytics',
    '20 */3 * * * sweep_print_orders',
  ])
})
