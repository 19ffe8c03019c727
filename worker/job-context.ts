/**
 * Runs each job inside the request context of the request that enqueued it (the `requestId` that
 * platform/jobs.server.ts put in its payload), so every log line of the job carries that id, and
 * logs one line when a job starts. Jobs from the crontab have no request and log without one.
 */
import type { Task } from 'graphile-worker'
import { getLogger } from '#platform/logger.server.ts'
import { runWithRequestContext } from '#platform/request-context.server.ts'

export function withRequestIds<Tasks extends Record<string, Task | undefined>>(tasks: Tasks): Tasks {
  const wrapped = Object.entries(tasks).map(([name, task]) => [name, task && withRequestId(name, task)])
  return Object.fromEntries(wrapped) as Tasks
}

function withRequestId(name: string, task: Task): Task {
  return (payload, helpers) => {
    const requestId = requestIdOf(payload)
    const run = () => {
      const { id, attempts, max_attempts } = helpers.job
      getLogger().info({ job: name, jobId: id, attempt: `${attempts}/${max_attempts}` }, `job ${name} started`)
      return task(payload, helpers)
    }
    return requestId ? runWithRequestContext({ requestId }, run) : run()
  }
}

function requestIdOf(payload: unknown): string | undefined {
  const value =
    typeof payload === 'object' && payload !== null ? (payload as { requestId?: unknown }).requestId : undefined
  return typeof value === 'string' ? value : undefined
}
