import { type ChildProcess, spawn } from 'node:child_process'
import pg from 'pg'
import { createDb, createPool, type DB } from '#platform/db.server.ts'
import { migrateToLatest } from '../scripts/migrate-to-latest.ts'
import { seedDefaults } from '../scripts/seed/defaults.ts'
import { freePort } from '../scripts/embedded-postgres.ts'
import { webNodeFlags } from '../scripts/local-database.ts'

/** A migrated, seeded database of its own for one benchmark, dropped afterwards. */
export async function scratchDatabase(serverUrl: string, name: string) {
  const admin = new pg.Client({ connectionString: `${serverUrl}/postgres` })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.query(`CREATE DATABASE ${name}`)
  const url = `${serverUrl}/${name}`
  const pool = createPool(url, { max: 20 })
  const db: DB = createDb(pool)
  await migrateToLatest(db, pool)
  await seedDefaults(db)
  return {
    url,
    db,
    pool,
    async drop() {
      await db.destroy()
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    },
  }
}

/**
 * Starts `node <script>` (the built web server or the worker) with extra env (and Node flags);
 * resolves once it is listening/ready.
 */
export async function startProcess(
  script: string,
  env: Record<string, string>,
  readyText: string,
  nodeFlags: string[] = [],
) {
  const port = env.PORT ?? String(await freePort())
  // BENCH_CPU_PROF_DIR=<dir>: each process writes a V8 CPU profile there when it exits (open it in
  // Chrome's DevTools); NODE_OPTIONS may not carry --cpu-prof.
  const profileDir = process.env.BENCH_CPU_PROF_DIR
  // The web with the flags it runs with everywhere (npm start, the Dockerfile).
  const flags = [
    ...(script === 'server/index.ts' ? webNodeFlags : []),
    ...nodeFlags,
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
  ]
  const child: ChildProcess = spawn(process.execPath, [...flags, script], {
    // MALLOC_ARENA_MAX as the Dockerfile and npm start set it.
    env: {
      MALLOC_ARENA_MAX: '2',
      ...process.env,
      NODE_ENV: 'production',
      SESSION_SECRET: 'bench-secret',
      // Production requires it; no bench follows the links it makes.
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      // No fixed metrics ports (two processes, or another run, would collide); a bench that
      // measures metrics passes a port.
      METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
      ...env,
      PORT: port,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (!output.includes(readyText)) return
      // Ready: from here on the log (a line per request) is read and dropped, not kept.
      for (const stream of [child.stdout, child.stderr]) stream?.off('data', onData).resume()
      resolve()
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}):\n${output}`)))
  })
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

export function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return NaN
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)
  return sorted[Math.max(0, index)]
}

export const round = (value: number, digits = 1) => Number(value.toFixed(digits))
