// `npm run migrate`: applies migrations (app + graphile-worker) and default data to DATABASE_URL.
import { prepareDatabase } from './prepare-database.ts'
import { exitOnStartupError } from '#app/utils/startup.server.ts'

try {
  await prepareDatabase()
  console.log('[migrate] database is up to date')
  process.exit(0)
} catch (error) {
  exitOnStartupError(error)
}
