// `npm start`: the whole app on one machine — an embedded PostgreSQL (unless DATABASE_URL is set),
// migrations and default data, then the web and worker processes. Ctrl-C stops all of them; a
// child that exits on its own is started again.
import { configureSharedPool } from '#platform/db.server.ts'
import { prepareDatabase } from './prepare-database.ts'
import { exitOnStartupError } from '#platform/startup.server.ts'
import { processDefaults, startDatabaseUnlessConfigured, webNodeFlags } from './local-database.ts'
import { supervise } from './supervise.ts'

let stopDatabase: () => Promise<void> = async () => {}
const children: ReturnType<typeof supervise>[] = []
let stopping = false

async function shutdown(code: number) {
  if (stopping) return
  stopping = true
  await Promise.all(children.map((child) => child.stop()))
  await stopDatabase()
  console.log('[start] stopped')
  process.exit(code)
}

try {
  stopDatabase = await startDatabaseUnlessConfigured('start')
  process.on('SIGINT', () => void shutdown(0))
  process.on('SIGTERM', () => void shutdown(0))

  // This process's own connections only migrate; the web and the worker name theirs.
  configureSharedPool({ applicationName: 'pawtrait-migrate' })
  await prepareDatabase()
  const childEnv = { ...processDefaults, ...process.env }
  children.push(
    supervise('web', [...webNodeFlags, 'server/index.ts'], { env: childEnv }),
    supervise('worker', ['worker/index.ts'], { env: childEnv }),
  )
} catch (error) {
  await stopDatabase()
  exitOnStartupError(error)
}
