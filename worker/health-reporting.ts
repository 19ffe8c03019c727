/**
 * What the worker does for its operator beside running jobs: the metrics port
 * (WORKER_METRICS_PORT: /metrics, /healthz, /readyz) and a heartbeat row in worker_processes that
 * the status page reads to list the workers alive in the last minute.
 */
import os from 'node:os'
import { recordWorkerAlive, removeWorker } from '#domain/operator/worker-processes.server.ts'
import { buildVersion } from '#platform/build-version.server.ts'
import { getDb } from '#platform/db.server.ts'
import type { WorkerEnv } from '#worker/env.ts'
import { getLogger } from '#platform/logger.server.ts'
import { startMetricsServer } from '#platform/metrics-server.server.ts'

const HEARTBEAT_MS = 15_000

export function startHealthReporting(env: WorkerEnv) {
  const metricsServer = startMetricsServer(env.WORKER_METRICS_PORT)
  const self = {
    id: `${os.hostname()}:${process.pid}`,
    hostname: os.hostname(),
    pid: process.pid,
    version: buildVersion(),
    // The image lane's slots: what the task API reports as maxConcurrentTasks.
    concurrency: env.IMAGE_CONCURRENCY,
  }
  const beat = () =>
    recordWorkerAlive(getDb(), self).catch((error: unknown) =>
      getLogger().warn(`worker heartbeat failed: ${error instanceof Error ? error.message : error}`),
    )
  void beat()
  const timer = setInterval(beat, HEARTBEAT_MS)
  timer.unref()

  return {
    async stop() {
      clearInterval(timer)
      await Promise.all([metricsServer.stop(), removeWorker(getDb(), self.id).catch(() => {})])
    },
  }
}
