// `npm run providers:check`: checks the configured providers' keys and models (worker/providers/check.ts),
// one line per provider, records the results for the status page, and exits 1 when any check failed.
import { closeDb, getDb } from '#platform/db.server.ts'
import { getWorkerEnv } from '#worker/env.ts'
import { exitOnStartupError } from '#platform/startup.server.ts'
import { checkAndRecord } from '#worker/providers/check.ts'

try {
  const results = await checkAndRecord(getDb(), getWorkerEnv())
  if (results.length === 0) console.log('[providers] only local providers are configured: nothing to check')
  await closeDb()
  process.exit(results.every((result) => result.ok) ? 0 : 1)
} catch (error) {
  exitOnStartupError(error)
}
