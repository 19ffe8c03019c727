import { configureSharedPool } from '#platform/db.server.ts'

/**
 * The web's database pool: a request never waits on the database for long. While the database
 * hangs (it accepts connections but answers nothing), a query fails after QUERY_TIMEOUT_MS and
 * taking a connection after CONNECT_TIMEOUT_MS, both as the database being unreachable, so /api
 * answers 503 and pages show the 503 page within 5 s (docs/decisions/0028).
 */
const QUERY_TIMEOUT_MS = 3_000
const CONNECT_TIMEOUT_MS = 3_000

export function configureWebPool() {
  configureSharedPool({
    applicationName: 'pawtrait-web',
    queryTimeoutMs: QUERY_TIMEOUT_MS,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
  })
}
