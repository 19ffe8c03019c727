import { runOnThreads } from '#worker/upscale/thread-pool.ts'
import type { PoolTestResult, PoolTestTask } from '#tests/helpers/pool-thread.ts'

// The upscaler's pool (decision 0047) with real threads that behave as each task says: every task
// answered once, and every way a thread can fail or fall silent ends the run instead of hanging it
// (these tests finish only if it does).

const script = new URL('../../helpers/pool-thread.ts', import.meta.url)

function run(tasks: PoolTestTask[], options: { threads?: number; taskTimeoutMs?: number; signal?: AbortSignal } = {}) {
  const results: Array<{ index: number } & PoolTestResult> = []
  const done = runOnThreads<PoolTestTask, PoolTestResult>(
    script,
    tasks,
    { threads: 2, taskTimeoutMs: 30_000, ...options },
    (result, index) => results.push({ index, ...result }),
  )
  return { done, results }
}

const doubles = (count: number) => Array.from({ length: count }, (_, i) => ({ double: i }))

test('every task is answered exactly once, shared by the threads, with no progress callback needed', async () => {
  const { done, results } = run(doubles(40), { threads: 3 })
  await done
  expect(results.map(({ index }) => index).sort((a, b) => a - b)).toEqual([...Array(40).keys()])
  for (const { index, doubled } of results) expect(doubled).toBe(index * 2)
  expect(new Set(results.map(({ threadId }) => threadId)).size).toBeGreaterThan(1)
})

test('more threads than tasks, and no tasks at all', async () => {
  const few = run(doubles(2), { threads: 8 })
  await few.done
  expect(few.results).toHaveLength(2)
  const none = run([])
  await none.done
  expect(none.results).toEqual([])
})

test('a task that throws fails the run with its message', async () => {
  const { done } = run([...doubles(3), { throws: 'the tile would not go' }, ...doubles(3)])
  await expect(done).rejects.toThrow('task 3 failed: the tile would not go')
})

test('a thread that exits mid-run fails the run, and nothing is answered after', async () => {
  const { done, results } = run([...doubles(4), { exits: 7 }, ...doubles(20)])
  await expect(done).rejects.toThrow('a thread stopped (exit code 7)')
  const answered = results.length
  expect(answered).toBeLessThan(25)
  await new Promise((resolve) => setTimeout(resolve, 100))
  expect(results).toHaveLength(answered)
})

test('a thread that dies of an uncaught error fails the run with that error', async () => {
  const { done } = run([...doubles(2), { crashes: 'out of the blue' }, ...doubles(6)])
  await expect(done).rejects.toThrow('out of the blue')
})

test('a task never answered fails the run at the time bound', async () => {
  // The bound counts from the task's hand-out, which for a thread's first task includes its start.
  const { done } = run([{ silent: true }, ...doubles(3)], { threads: 1, taskTimeoutMs: 1_000 })
  await expect(done).rejects.toThrow('task 0 got no answer from its thread within 1 s')
})

test('an abort stops the run, before or during it', async () => {
  await expect(run(doubles(2), { signal: AbortSignal.abort() }).done).rejects.toThrow('it was stopped')
  const controller = new AbortController()
  const { done } = run([{ silent: true }, { silent: true }], { signal: controller.signal })
  setTimeout(() => controller.abort(), 100)
  await expect(done).rejects.toThrow('it was stopped')
})

test('a throw from the caller on a result fails the run with that error', async () => {
  const error = new Error('the model is not there')
  const done = runOnThreads<PoolTestTask, PoolTestResult>(
    script,
    doubles(6),
    { threads: 2, taskTimeoutMs: 30_000 },
    () => {
      throw error
    },
  )
  await expect(done).rejects.toBe(error)
})
