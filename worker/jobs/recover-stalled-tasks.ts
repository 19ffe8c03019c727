import type { Task } from 'graphile-worker'
import { recoverStalledTasks } from '#domain/generation/task-recovery.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getWorkerEnv } from '#worker/env.ts'

/** Every minute: hands on the tasks of a worker that died mid-job (see task-recovery.server.ts). */
export const recoverStalled: Task = async (_payload, helpers) => {
  const { requeued, failed } = await recoverStalledTasks(getDb(), getWorkerEnv().TASK_STALL_MS)
  if (requeued.length > 0) helpers.logger.warn(`requeued stalled task(s): ${requeued.join(', ')}`)
  if (failed.length > 0) helpers.logger.warn(`failed and refunded stalled task(s): ${failed.join(', ')}`)
}
