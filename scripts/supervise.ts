import { type ChildProcess, spawn } from 'node:child_process'

export interface SupervisorOptions {
  env?: NodeJS.ProcessEnv
  /** The first restart's delay; it doubles while the child keeps crashing (default 1 s). */
  baseDelayMs?: number
  maxDelayMs?: number
  /** A child that ran this long before exiting counts as healthy: its restart starts the backoff over. */
  healthyRunMs?: number
  log?: (line: string) => void
}

/**
 * Runs `node <args>` and starts it again, with a logged, growing delay, whenever it exits without
 * being asked to, so that one process of `npm start` going down does not take the app with it.
 */
export function supervise(name: string, args: string[], options: SupervisorOptions = {}) {
  const { baseDelayMs = 1_000, maxDelayMs = 30_000, healthyRunMs = 60_000, log = console.error } = options
  let child: ChildProcess
  let stopping = false
  let restarts = 0

  const start = (crashesInARow: number) => {
    const started = Date.now()
    child = spawn(process.execPath, args, { stdio: 'inherit', env: options.env ?? process.env })
    child.on('exit', (code, signal) => {
      if (stopping) return
      const inARow = Date.now() - started >= healthyRunMs ? 1 : crashesInARow + 1
      const delay = Math.min(baseDelayMs * 2 ** (inARow - 1), maxDelayMs)
      log(`[start] the ${name} process exited (${signal ?? code}); restarting it in ${delay / 1000} s`)
      setTimeout(() => {
        if (stopping) return
        restarts += 1
        start(inARow)
      }, delay)
    })
  }
  start(0)

  return {
    restarts: () => restarts,
    /** Stops the current child (SIGTERM) and restarts no more; resolves when it has exited. */
    stop() {
      stopping = true
      return new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      })
    },
  }
}
