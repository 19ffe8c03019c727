// The worker process: runs generation, email and maintenance jobs from graphile-worker's queue, in
// lanes of their own (worker/lanes.ts), so that no kind of job can keep another waiting.
import { run } from 'graphile-worker'
import { closeDb, configureSharedPool, getDb, getPool } from '#platform/db.server.ts'
import { getWorkerEnv } from '#worker/env.ts'
import { initLogging } from '#platform/logger.server.ts'
import { exitOnStartupError } from '#platform/startup.server.ts'
import { lanes } from './lanes.ts'
import { startHealthReporting } from './health-reporting.ts'
import { outageAwareGraphileLogger, surviveDatabaseOutages } from './outage-guard.ts'
import { PatientPool } from './patient-pool.ts'
import { checkAndRecord } from './providers/check.ts'

/** The pool's size at the least, for the running jobs' concurrent short queries (heartbeat, progress). */
const MIN_POOL_SIZE = 20
/**
 * A query unanswered this long (the database hangs) fails as an outage, which the worker waits
 * out (patient-pool.ts): long enough for any of its queries (rollups), well within TASK_STALL_MS.
 */
const QUERY_TIMEOUT_MS = 30_000

initLogging('worker')
surviveDatabaseOutages()

try {
  const env = getWorkerEnv()
  const workerLanes = lanes(env)
  // Once running, a database outage pauses the worker rather than failing it (patient-pool.ts); a
  // full pool does fail a query, so there is a connection for every job that can run at once, and
  // two a lane for graphile-worker's LISTEN and its job bookkeeping.
  const jobsAtOnce = workerLanes.reduce((sum, lane) => sum + lane.concurrency, 0)
  configureSharedPool({
    max: Math.max(MIN_POOL_SIZE, jobsAtOnce + 2 * workerLanes.length),
    Pool: PatientPool,
    applicationName: 'pawtrait-worker',
    queryTimeoutMs: QUERY_TIMEOUT_MS,
  })
  // At start-up an unreachable database is more likely a wrong DATABASE_URL: say so and exit (pg's
  // pool.query does not wait); npm start and Fly start the process again.
  await getPool().query('SELECT 1')
  const runners = await Promise.all(
    workerLanes.map((lane) =>
      run({
        pgPool: getPool(),
        concurrency: lane.concurrency,
        taskList: lane.taskList,
        crontab: lane.crontab,
        logger: outageAwareGraphileLogger,
        noHandleSignals: true,
        pollInterval: 1000,
        gracefulShutdownAbortTimeout: env.WORKER_SHUTDOWN_GRACE_MS,
      }),
    ),
  )
  console.log(`[worker] started with lanes ${workerLanes.map((lane) => `${lane.name}=${lane.concurrency}`).join(', ')}`)
  // The key may be fixed later: a failed check is logged (error level) for the operator, and the worker runs on.
  checkAndRecord(getDb(), env).catch((error) => console.error(`[providers] the start-up check failed: ${error}`))
  const healthReporting = startHealthReporting(env)

  // SIGTERM/SIGINT: stop taking jobs and let running ones finish; graphile-worker aborts and
  // releases (for retry) whatever is still running when its grace period ends.
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    console.log(`[worker] ${signal}: finishing running jobs`)
    // Past the grace period (jobs released) and a margin, e.g. with the database away: go anyway;
    // task recovery hands on whatever is still marked running.
    setTimeout(() => process.exit(0), env.WORKER_SHUTDOWN_GRACE_MS + 10_000).unref()
    await Promise.all(runners.map((runner) => runner.stop()))
    await healthReporting.stop()
    await closeDb()
    console.log('[worker] stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
  await Promise.all(runners.map((runner) => runner.promise))
} catch (error) {
  exitOnStartupError(error)
}
