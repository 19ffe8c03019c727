// `npm run dev`: the app with rebuilds on change, on the database `npm start` uses (an embedded
// PostgreSQL unless DATABASE_URL is set; migrations and default data first).
// - `remix dev` builds the app in development mode and watches app/ and remix.config.js's
//   watchPaths (domain/, platform/, server/). After each build it starts the web process
//   (server/index.ts) again, which says when it serves the new build (logDevReady); remix dev then
//   updates the open pages (hot update or reload) through root.tsx's <LiveReload>.
// - The worker runs under `node --watch`, which restarts it when a file it imports changes
//   (worker/, domain/, platform/).
// Ctrl-C stops both, then the database.
import { type ChildProcess, spawn } from 'node:child_process'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { configureSharedPool } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { publicOrigin } from '#platform/public-url.server.ts'
import { exitOnStartupError } from '#platform/startup.server.ts'
import { freePort } from './embedded-postgres.ts'
import { processDefaults, startDatabaseUnlessConfigured, webNodeFlags } from './local-database.ts'
import { prepareDatabase } from './prepare-database.ts'

const root = path.resolve(fileURLToPath(import.meta.url), '../..')
const remixCli = path.join(root, 'node_modules/@remix-run/dev/dist/cli.js')
/** The worker may take WORKER_SHUTDOWN_GRACE_MS (30 s) and a margin to stop; past this, stop it anyway. */
const STOP_TIMEOUT_MS = 60_000

let stopDatabase: () => Promise<void> = async () => {}
const children: ChildProcess[] = []
let stopping = false

async function shutdown(code: number) {
  if (stopping) return
  stopping = true
  await Promise.all(children.map(stopGroup))
  await stopDatabase()
  console.log('[dev] stopped')
  process.exit(code)
}

/**
 * `node <args>` in a process group of its own, so that stopping it can wait for everything it
 * started (remix dev's web process, node --watch's worker) before the database goes. Ctrl-C reaches
 * this process only, which stops them in order.
 */
function startGroup(name: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  })
  child.once('exit', (code, signal) => {
    if (stopping) return
    console.error(`[dev] ${name} exited (${signal ?? code}); stopping`)
    void shutdown(1)
  })
  children.push(child)
}

/** SIGTERM to the group's leader (remix dev, node --watch), which stops its own child; then waits for the whole group. */
async function stopGroup(child: ChildProcess) {
  const group = child.pid
  if (group === undefined) return
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
  const deadline = Date.now() + STOP_TIMEOUT_MS
  while (groupAlive(group)) {
    if (Date.now() > deadline) {
      process.kill(-group, 'SIGKILL')
      return
    }
    await sleep(100)
  }
}

function groupAlive(group: number) {
  try {
    process.kill(-group, 0)
    return true
  } catch {
    return false
  }
}

try {
  stopDatabase = await startDatabaseUnlessConfigured('dev')
  process.on('SIGINT', () => void shutdown(0))
  process.on('SIGTERM', () => void shutdown(0))

  // This process's own connections only migrate; the web and the worker name theirs.
  configureSharedPool({ applicationName: 'pawtrait-migrate' })
  await prepareDatabase()
  const env = { ...processDefaults, ...process.env, NODE_ENV: 'development' as const }
  // remix dev's own port: its WebSocket, to which the open pages listen for updates.
  const devPort = await freePort()
  // remix dev splits the command on spaces (a space inside a path is written `\ `).
  const webCommand = [process.execPath, ...webNodeFlags, 'server/index.ts']
    .map((part) => part.replaceAll(' ', '\\ '))
    .join(' ')
  console.log(`[dev] building; the app will be at ${publicOrigin(getEnv())} (rebuilt on every change)`)
  // Its CLI loads Vite's CommonJS build, whose deprecation warning concerns Remix, not this app.
  const remixEnv = { ...env, VITE_CJS_IGNORE_WARNING: 'true' }
  startGroup('remix dev', [remixCli, 'dev', '--port', String(devPort), '--command', webCommand], remixEnv)
  startGroup('the worker', ['--watch', '--watch-preserve-output', 'worker/index.ts'], env)
} catch (error) {
  await stopDatabase()
  exitOnStartupError(error)
}
