import { startNodeProcess } from './node-process.ts'
import { waitFor } from './worker-process.ts'

/**
 * A second (third, …) web process: the /api app of web-server.ts in a child process of its own,
 * with its own database pool and LISTEN connection, against this test file's database.
 */
export async function startWebProcess(env: Record<string, string> = {}) {
  const { child, output, stop } = startNodeProcess('tests/helpers/web-process-main.ts', env)
  const origin = await waitFor(() => /\[web\] listening at (http:\/\/[\d.:]+)/.exec(output.join(''))?.[1], {
    timeout: 20_000,
  })
  return { origin, output, stop, pid: child.pid! }
}
