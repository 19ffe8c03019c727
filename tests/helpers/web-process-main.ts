// A web process of its own for tests (tests/helpers/web-process.ts): the app of web-server.ts,
// with the web's pool (server/web-pool.ts), logging as server/index.ts does (one JSON line per
// request, console.* through the logger).
import { initLogging } from '#platform/logger.server.ts'
import { configureWebPool } from '../../server/web-pool.ts'
import { apiBuild, startWebServer } from './web-server.ts'

const logger = initLogging('web')
configureWebPool()
// Besides /api, the resource routes Node loads without a build (plain .ts modules).
const resourceRoutes = ['routes/csp-report', 'routes/robots[.]txt', 'routes/sitemap[.]xml', 'routes/print-files.$id']
const server = await startWebServer({}, { logger, metrics: null }, await apiBuild(resourceRoutes))
console.log(`[web] listening at ${server.origin}`)
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)))
