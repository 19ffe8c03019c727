import { startNodeProcess } from './node-process.ts'

/** Starts the real worker process (worker/index.ts) against this test file's database. */
export function startWorker(env: Record<string, string> = {}) {
  const worker = startNodeProcess('worker/index.ts', { WORKER_CONCURRENCY: '2', ...env })
  return {
    ...worker,
    async ready() {
      await waitFor(() => worker.output.join('').includes('[worker] started'), { timeout: 20_000 })
    },
  }
}

/** Polls `check` until it returns a truthy value, or fails after `timeout` ms. */
export async function waitFor<T>(check: () => T | Promise<T>, { timeout = 10_000, interval = 50 } = {}) {
  const deadline = Date.now() + timeout
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`waitFor timed out after ${timeout} ms`)
    await new Promise((resolve) => setTimeout(resolve, interval))
  }
}
