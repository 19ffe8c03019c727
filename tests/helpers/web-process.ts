import { spawn } from 'node:child_process'
import { waitFor } from './worker-process.ts'

/**
 * A second (third, …) web process: the /api app of web-server.ts in a child process of its own,
 * with its own database pool and LISTEN connection, against this test file's database.
 */
export async function startWebProcess(env: Record<string, string> = {}) {
  const output: string[] = []
  const child = spawn(process.execPath, ['tests/helpers/web-process-main.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout.on('data', (chunk) => output.push(String(chunk)))
  child.stderr.on('data', (chunk) => output.push(String(chunk)))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const origin = await waitFor(() => /\[web\] listening at (\S+)/.exec(output.join(''))?.[1], { timeout: 20_000 })
  return {
    origin,
    output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}
