import { type ChildProcess, spawn } from 'node:child_process'

/** Starts the real worker process (worker/index.ts) against this test file's database. */
export function startWorker(env: Record<string, string> = {}) {
  const output: string[] = []
  const child: ChildProcess = spawn(process.execPath, ['worker/index.ts'], {
    env: { ...process.env, WORKER_CONCURRENCY: '2', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.on('data', (chunk) => output.push(String(chunk)))
  child.stderr?.on('data', (chunk) => output.push(String(chunk)))

  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))

  return {
    child,
    output,
    exited,
    async ready() {
      await waitFor(() => output.join('').includes('[worker] started'), { timeout: 20_000 })
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
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
