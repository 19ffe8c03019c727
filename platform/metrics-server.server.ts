import http from 'node:http'
import { buildVersion } from './build-version.server.ts'
import { getLogger } from './logger.server.ts'
import { getMetrics } from './metrics.server.ts'
import { checkReadiness } from './readiness.server.ts'

/**
 * The operator's port of a process (METRICS_PORT for the web, WORKER_METRICS_PORT for the worker):
 * `/metrics` for Fly's Prometheus scraper, `/healthz` (the process answers) and `/readyz` (it
 * reaches the database and storage). Never routed through the public service: Fly scrapes the
 * machine's private address. Port 0 turns it off.
 */
export function startMetricsServer(port: number): { stop(): Promise<void> } {
  if (port === 0) return { stop: async () => {} }
  const { registry, buildInfo } = getMetrics()
  buildInfo.set({ version: buildVersion() }, 1)
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    const answer = (status: number, body: string, type = 'text/plain; charset=utf-8') =>
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body)
    if (request.method !== 'GET' && request.method !== 'HEAD') return answer(405, 'method not allowed')
    if (path === '/healthz') return answer(200, 'ok')
    if (path === '/readyz') {
      return void checkReadiness().then((result) =>
        answer(result.ready ? 200 : 503, JSON.stringify(result), 'application/json'),
      )
    }
    if (path === '/metrics') {
      return void registry.metrics().then(
        (text) => answer(200, text, registry.contentType),
        (error: unknown) => {
          getLogger().error({ err: error }, 'metrics collection failed')
          answer(500, 'metrics collection failed')
        },
      )
    }
    answer(404, 'not found')
  })
  // A busy port must not take the process down: the app works without its metrics.
  server.on('error', (error) => getLogger().error({ err: error, port }, 'metrics server could not listen'))
  server.listen(port, () => getLogger().info({ port }, `metrics on :${port}/metrics`))
  server.unref()
  return {
    stop: () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
  }
}
