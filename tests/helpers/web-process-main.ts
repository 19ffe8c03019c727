// A web process of its own for tests (tests/helpers/web-process.ts): the app of web-server.ts.
import { configureWebPool } from '../../server/web-pool.ts'
import { startWebServer } from './web-server.ts'

configureWebPool()

const server = await startWebServer()
console.log(`[web] listening at ${server.origin}`)
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)))
