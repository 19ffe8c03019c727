// `npm run migrate`: applies migrations (app + graphile-worker) and default data to DATABASE_URL.
import { configureSharedPool } from '#platform/db.server.ts'
import { initLogging } from '#platform/logger.server.ts'
import { prepareDatabase } from './prepare-database.ts'
import { exitOnStartupError } from '#platform/startup.server.ts'

initLogging('migrate')
configureSharedPool({ applicationName: 'pawtrait-migrate' })

try {
  await prepareDatabase()
  console.log('[migrate] database is up to date')
  process.exit(0)
} catch (error) {
  exitOnStartupError(error)
}
