// `npm start`: the whole app on one machine — an embedded PostgreSQL (unless DATABASE_URL is set),
// migrations and default data, then the web and worker processes. Ctrl-C stops all of them; a
// child that exits on its own is started again.
import { type ChildProcess, spawn } from 'node:child_process'
import path from 'node:path'
import { parseEnv } from '#app/utils/env.server.ts'
import { prepareDatabase } from './prepare-database.ts'
import { exitOnStartupError } from '#app/utils/startup.server.ts'
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

/** A child that ran this long before exiting is restarted after 1 s; one that keeps crashing backs off up to 30 s. */
const HEALTHY_RUN_MS = 60_000
const MAX_RESTART_DELAY_MS = 30_000

/** Starts a child, and starts it again (with backoff, logged) whenever it exits without being asked to. */
function launch(name: string, script: string, crashes = 0) {
  const started = Date.now()
  const child = spawn(process.execPath, [script], { stdio: 'inherit', env: { ...processDefaults, ...process.env } })
  child.on('exit', (code, signal) => {
    children.splice(children.indexOf(child), 1)
    if (stopping) return
    const inARow = Date.now() - started > HEALTHY_RUN_MS ? 0 : crashes + 1
    const delay = Math.min(1000 * 2 ** Math.max(0, inARow - 1), MAX_RESTART_DELAY_MS)
    console.error(`[start] the ${name} process exited (${signal ?? code}); restarting it in ${delay / 1000} s`)
    setTimeout(() => {
      if (!stopping) launch(name, script, inARow)
    }, delay)
  })
  children.push(child)
}

try {
  const env = parseEnv()
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
