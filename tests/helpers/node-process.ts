import { spawn } from 'node:child_process'

/**
 * A Node child process running `script` with this test file's environment plus `env`, its stdout
 * and stderr collected in `output`. `stop` sends the signal unless the process has already ended.
 */
export function startNodeProcess(script: string, env: Record<string, string>) {
  const output: string[] = []
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout.on('data', (chunk) => output.push(String(chunk)))
  child.stderr.on('data', (chunk) => output.push(String(chunk)))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return {
    child,
    output,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}
