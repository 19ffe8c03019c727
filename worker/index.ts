// The worker process: runs generation, email and maintenance jobs from graphile-worker's queue.
import { run } from 'graphile-worker'
import { closeDb, getPool } from '#app/utils/db.server.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { graphileLogger, initLogging } from '#app/utils/logger.server.ts'
import { exitOnStartupError } from '#app/utils/startup.server.ts'
import { startWorkerOperations } from './operations.ts'
import { crontab, taskList } from './tasks/index.ts'

initLogging('worker')

try {
  const env = getEnv()
  await getPool().query('SELECT 1')
  const runner = await run({
    pgPool: getPool(),
    concurrency: env.WORKER_CONCURRENCY,
    taskList: taskList as Parameters<typeof run>[0]['taskList'],
    crontab,
    logger: graphileLogger,
    noHandleSignals: true,
    pollInterval: 1000,
    gracefulShutdownAbortTimeout: env.WORKER_SHUTDOWN_GRACE_MS,
  })
  console.log(`[worker] started with concurrency ${env.WORKER_CONCURRENCY}`)
  const operations = startWorkerOperations(env)

  // SIGTERM/SIGINT: stop taking jobs and let running ones finish; graphile-worker aborts and
  // releases (for retry) whatever is still running when its grace period ends.
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    console.log(`[worker] ${signal}: finishing running jobs`)
    await runner.stop()
    await operations.stop()
    await closeDb()
    console.log('[worker] stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
  await runner.promise
} catch (error) {
  exitOnStartupError(error)
}
