import { Logger } from 'graphile-worker'
import {
  isDatabasePoolExhausted,
  isDatabaseUnreachable,
  noteDatabaseUnreachable,
} from '#platform/database-outage.server.ts'
import { getLogger, graphileLogger } from '#platform/logger.server.ts'

/**
 * graphile-worker records a job's success or failure without awaiting it (worker.js calls
 * completeJob/failJob and moves on), so a database that drops the connection during that query
 * rejects a promise nobody handles, which ends a Node process. The patient pool
 * (patient-pool.ts) makes such writes wait for the database; this is the last resort for a
 * connection lost in the middle of one: the outage is noted (logged once) and the process runs on.
 * The job then stays locked until task recovery (task-recovery.server.ts) hands it on; so does one
 * whose write found the pool full (logged and counted where the pool gave up). Any other unhandled
 * rejection is a bug: logged, and the process exits as Node would.
 */
export function surviveDatabaseOutages() {
  process.on('unhandledRejection', (reason) => {
    if (isDatabaseUnreachable(reason)) return noteDatabaseUnreachable('job bookkeeping', reason)
    if (isDatabasePoolExhausted(reason)) return
    getLogger().fatal({ err: reason }, 'unhandled rejection')
    process.exit(1)
  })
}

/** graphile-worker's logger, with its per-retry connection errors (LISTEN, reset locked) folded into the one outage line. */
export const outageAwareGraphileLogger = new Logger((scope) => {
  const inner = graphileLogger.scope(scope)
  return (level, message, meta) => {
    const error = (meta as { error?: unknown } | undefined)?.error
    if (level === 'error' && isDatabaseUnreachable(error)) return noteDatabaseUnreachable('graphile-worker', error)
    if (level === 'error') inner.error(message, meta)
    else if (level === 'warning') inner.warn(message, meta)
    else if (level === 'info') inner.info(message, meta)
    else inner.debug(message, meta)
  }
})
