import { parentPort } from 'node:worker_threads'
import type { AnswerMessage, TaskMessage } from './thread-pool.ts'

/**
 * A pool thread's side of runOnThreads (thread-pool.ts): each task is answered with `handle`'s
 * result, moving the buffers `transfer` names, or with the message of what it threw.
 */
export function answerTasks<T, R>(handle: (task: T) => Promise<R>, transfer: (result: R) => ArrayBuffer[]) {
  const port = parentPort
  if (!port) throw new Error('answerTasks runs in a worker thread')
  port.on('message', ({ index, task }: TaskMessage<T>) => {
    handle(task).then(
      (result) => port.postMessage({ index, result } satisfies AnswerMessage<R>, transfer(result)),
      (error: unknown) =>
        port.postMessage({
          index,
          error: error instanceof Error ? error.message : String(error),
        } satisfies AnswerMessage<R>),
    )
  })
}
