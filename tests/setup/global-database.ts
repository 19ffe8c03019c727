import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { startEmbeddedPostgres } from '../../scripts/embedded-postgres.ts'

/**
 * Once per test run: a PostgreSQL server (embedded, or the one DATABASE_URL points at) and a
 * template database with every migration applied. Each test file then gets its own fresh copy
 * (tests/setup/test-database.ts), so files run in parallel without seeing each other's rows.
 */
const root = path.resolve(fileURLToPath(import.meta.url), '../../..')
const TEMPLATE_DB = `pawtrait_template_${process.pid}`

declare module 'vitest' {
  export interface ProvidedContext {
    databaseServerUrl: string
    templateDatabase: string
  }
}

export default async function setup(project: TestProject) {
  let serverUrl: string
  let stop = async () => {}
  if (process.env.DATABASE_URL) {
    const url = new URL(process.env.DATABASE_URL)
    url.pathname = ''
    serverUrl = url.toString().replace(/\/$/, '')
  } else {
    // A cluster of this run's own, so that several runs on one machine never share a data folder.
    const folder = path.join(root, `tests/.tmp/postgres-${process.pid}`)
    const server = await startEmbeddedPostgres(folder, 'postgres')
    serverUrl = server.serverUrl
    stop = async () => {
      await server.stop()
      fs.rmSync(folder, { recursive: true, force: true })
    }
  }

  const admin = new pg.Client({ connectionString: `${serverUrl}/postgres` })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB}`)
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`)

  process.env.DATA_DIR ??= path.join(root, 'tests/.tmp/data')
  // The demo gallery takes seconds to render; the gallery tests seed their own database.
  process.env.SEED_DEMO_GALLERY ??= 'off'
  // Migrate and seed the template with the app's own code, as production does.
  process.env.DATABASE_URL = `${serverUrl}/${TEMPLATE_DB}`
  const { prepareDatabase } = await import('../../scripts/prepare-database.ts')
  await prepareDatabase()

  project.provide('databaseServerUrl', serverUrl)
  project.provide('templateDatabase', TEMPLATE_DB)

  return async () => {
    const leftovers = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'pawtrait_test_%' OR datname = $1`,
      [TEMPLATE_DB],
    )
    for (const { datname } of leftovers.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
    await admin.end()
    await stop()
  }
}
