// A web process of its own for tests (tests/helpers/web-process.ts): the app of web-server.ts.
import { startWebServer } from './web-server.ts'

const server = await startWebServer()
console.log(`[web] listening at ${server.origin}`)
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)))
