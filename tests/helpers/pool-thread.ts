import { threadId } from 'node:worker_threads'
import { answerTasks } from '#worker/upscale/thread-tasks.ts'

/** A thread for tests/unit/upscale/thread-pool.test.ts: each task says how the thread behaves. */
export type PoolTestTask =
  | { double: number }
  | { throws: string }
  | { exits: number }
  | { crashes: string }
  /** Never answers: what a lost message looks like from the pool. */
  | { silent: true }

export interface PoolTestResult {
  doubled: number
  threadId: number
}

answerTasks<PoolTestTask, PoolTestResult>(
  async (task) => {
    if ('throws' in task) throw new Error(task.throws)
    if ('exits' in task) process.exit(task.exits)
    if ('crashes' in task) {
      setImmediate(() => {
        throw new Error(task.crashes)
      })
    }
    if ('double' in task) return { doubled: task.double * 2, threadId }
    return new Promise<never>(() => {})
  },
  () => [],
)
