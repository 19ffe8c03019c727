import { getDb } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { getDatabaseNotices } from '#domain/live-updates/database-notices.server.ts'
import { createTaskStreams, type TaskStreams } from '#domain/live-updates/task-streams.server.ts'

let shared: TaskStreams | undefined

/**
 * This web process's live task streams, started on first use. A stopping web process cuts them
 * when it exits (server/index.ts gives open requests 10 s); browsers reconnect to another machine.
 */
export function getTaskStreams(): TaskStreams {
  const env = getEnv()
  shared ??= createTaskStreams({
    db: getDb(),
    notices: getDatabaseNotices(),
    logger: getLogger(),
    metrics: getMetrics(),
    heartbeatMs: env.LIVE_UPDATES_HEARTBEAT_MS,
    maxAgeMs: env.LIVE_UPDATES_MAX_STREAM_AGE_MS,
    maxStreamsPerUser: env.LIVE_UPDATES_MAX_STREAMS_PER_USER,
    sessionCheckMs: env.LIVE_UPDATES_SESSION_CHECK_MS,
  })
  return shared
}
