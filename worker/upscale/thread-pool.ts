import { Worker } from 'node:worker_threads'

/**
 * A pool of fresh worker threads for one piece of work, such as a picture's tiles (upscaler.ts):
 * each thread is handed the next task when it answers, so a thread slowed by the machine does
 * fewer. The run fails, and its threads end, at the first task that throws, a thread that dies, a
 * task unanswered within the time bound or an abort, so a caller never waits on a silent thread.
 * thread-tasks.ts is a thread's side. Decision 0047.
 */

export interface TaskMessage<T> {
  index: number
  task: T
}

export type AnswerMessage<R> = { index: number; result: R } | { index: number; error: string }

export interface PoolOptions<T> {
  threads: number
  /** A task unanswered this long fails the run. */
  taskTimeoutMs: number
  signal?: AbortSignal
  /** The buffers a task's message moves to its thread instead of copying. */
  transfer?: (task: T) => ArrayBuffer[]
}

/**
 * Runs every task on up to `options.threads` threads of `script`; `onResult` gets each answer as it
 * comes (a throw there fails the run too). Resolves once every task is answered; the threads are
 * terminated before it settles either way.
 */
export async function runOnThreads<T, R>(
  script: URL,
  tasks: readonly T[],
  options: PoolOptions<T>,
  onResult: (result: R, index: number) => void,
): Promise<void> {
  const threads = Array.from({ length: Math.min(options.threads, tasks.length) }, () => new Worker(script))
  const timers = new Map<Worker, NodeJS.Timeout>()
  let stop = () => {}
  try {
    await new Promise<void>((resolve, reject) => {
      let next = 0
      let answered = 0
      let failed = false
      const fail = (error: unknown) => {
        failed = true
        reject(error instanceof Error ? error : new Error(String(error)))
      }
      const give = (thread: Worker) => {
        clearTimeout(timers.get(thread))
        if (next === tasks.length) return
        const index = next++
        const task = tasks[index]
        thread.postMessage({ index, task } satisfies TaskMessage<T>, options.transfer?.(task) ?? [])
        const seconds = options.taskTimeoutMs / 1000
        timers.set(
          thread,
          setTimeout(
            () => fail(new Error(`task ${index} got no answer from its thread within ${seconds} s`)),
            options.taskTimeoutMs,
          ),
        )
      }
      stop = () => fail(new Error('it was stopped'))
      if (options.signal?.aborted) stop()
      options.signal?.addEventListener('abort', stop, { once: true })
      for (const thread of threads) {
        thread.on('message', (answer: AnswerMessage<R>) => {
          if (failed) return
          if ('error' in answer) return fail(new Error(`task ${answer.index} failed: ${answer.error}`))
          try {
            onResult(answer.result, answer.index)
          } catch (error) {
            return fail(error)
          }
          answered += 1
          if (answered === tasks.length) resolve()
          else give(thread)
        })
        thread.once('error', fail)
        thread.once('messageerror', fail)
        thread.once('exit', (code) => fail(new Error(`a thread stopped (exit code ${code})`)))
        give(thread)
      }
      if (tasks.length === 0) resolve()
    })
  } finally {
    options.signal?.removeEventListener('abort', stop)
    for (const timer of timers.values()) clearTimeout(timer)
    await Promise.all(threads.map((thread) => thread.terminate()))
  }
}
