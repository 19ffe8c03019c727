// `npm start`: the whole app on one machine — an embedded PostgreSQL (unless DATABASE_URL is set),
// migrations and default data, then the web and worker processes. Ctrl-C stops all of them.
import { type ChildProcess, spawn } from 'node:child_process'
import path from 'node:path'
import { parseWorkerEnv } from '#worker/env.ts'
import { prepareDatabase } from './prepare-database.ts'
import { exitOnStartupError } from '#platform/startup.server.ts'
import { startEmbeddedPostgres } from './embedded-postgres.ts'

/**
 * Fewer glibc malloc arenas: sharp's threads otherwise fragment memory into many arenas that are
 * never given back (measured in bench/generation.ts). The Dockerfile sets the same.
 */
const processDefaults = { MALLOC_ARENA_MAX: '2' }

let stopDatabase: () => Promise<void> = async () => {}
const children: ChildProcess[] = []
let stopping = false

async function shutdown(code: number) {
  if (stopping) return
  stopping = true
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          child.once('exit', () => resolve())
          child.kill('SIGTERM')
        }),
    ),
  )
  await stopDatabase()
  console.log('[start] stopped')
  process.exit(code)
}

function launch(name: string, script: string) {
  const child = spawn(process.execPath, [script], { stdio: 'inherit', env: { ...processDefaults, ...process.env } })
  child.on('exit', (code, signal) => {
    if (stopping) return
    console.error(`[start] the ${name} process exited (${signal ?? code}); stopping everything`)
    void shutdown(1)
  })
  children.push(child)
}

try {
  const env = parseWorkerEnv()
  if (!env.DATABASE_URL) {
    const folder = path.join(env.DATA_DIR, 'postgres')
    console.log(`[start] starting embedded PostgreSQL in ${folder}`)
    const database = await startEmbeddedPostgres(folder)
    process.env.DATABASE_URL = database.url
    stopDatabase = database.stop
  }
  process.on('SIGINT', () => void shutdown(0))
  process.on('SIGTERM', () => void shutdown(0))

  await prepareDatabase()
  launch('web', 'server/index.ts')
  launch('worker', 'worker/index.ts')
} catch (error) {
  await stopDatabase()
  exitOnStartupError(error)
}
