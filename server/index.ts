// The web process: serves the Remix app, its /api resource routes, static assets and media.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequestHandler } from '@remix-run/express'
import type { ServerBuild } from '@remix-run/node'
import compression from 'compression'
import express, { type RequestHandler } from 'express'
import sharp from 'sharp'
import { registerDatabaseMetrics } from '#app/features/operations/database-metrics.server.ts'
import { getDb } from '#app/utils/db.server.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { initLogging } from '#app/utils/logger.server.ts'
import { startMetricsServer } from '#app/utils/metrics-server.server.ts'
import { getMetrics } from '#app/utils/metrics.server.ts'
import { exitOnStartupError } from '#app/utils/startup.server.ts'
import { rejectCrossSiteRequests } from './csrf.ts'
import { instrumentRoutes, logRequests, markUnmatched } from './request-log.ts'

const root = path.resolve(fileURLToPath(import.meta.url), '../..')

// The web only re-encodes uploads, one at a time (app/features/generation/task-submission.server.ts); a single
// libvips thread is enough and keeps the process's memory low. The worker keeps the default.
sharp.concurrency(1)

const logger = initLogging('web')

try {
  const env = getEnv()
  const build = instrumentRoutes((await import(path.join(root, 'build/index.js'))) as ServerBuild)
  const metrics = env.METRICS_PORT ? getMetrics() : null
  if (metrics) registerDatabaseMetrics(metrics, getDb())
  startMetricsServer(env.METRICS_PORT)

  const app = express()
  app.disable('x-powered-by')
  app.set('trust proxy', true)
  app.use(logRequests(logger, metrics))
  app.use(compression())
  // Fingerprinted bundles can be cached forever; other public files for an hour.
  app.use('/build', express.static(path.join(root, 'public/build'), { immutable: true, maxAge: '1y' }))
  // API and media requests never name a public file: spare them the file-system lookup.
  const publicFiles = express.static(path.join(root, 'public'), { maxAge: '1h' })
  app.use((req, res, next) => (/^\/(api|media)\//.test(req.path) ? next() : publicFiles(req, res, next)))
  app.use(markUnmatched)
  app.use(rejectCrossSiteRequests(env.PUBLIC_URL))
  app.all('/api/*', apiRequestHandler(build, env.NODE_ENV))
  app.all('*', createRequestHandler({ build, mode: env.NODE_ENV }))

  const server = app.listen(env.PORT, () => {
    console.log(`[web] Pawtrait is running at ${env.PUBLIC_URL ?? `http://localhost:${env.PORT}`}`)
  })

  const stop = (signal: string) => {
    console.log(`[web] ${signal}: closing`)
    server.close(() => process.exit(0))
    server.closeIdleConnections()
    setTimeout(() => process.exit(0), 10_000).unref()
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
} catch (error) {
  exitOnStartupError(error)
}

/**
 * Remix ranks every route of its build on each request, a fifth of the CPU of a status poll, so an
 * /api request is matched against the routes of its own group only (`/api/<group>/…`, the file
 * names `api.<group>.….ts`). Anything else under /api goes on to the full app.
 */
function apiRequestHandler(build: ServerBuild, mode: string): RequestHandler {
  const groups = new Map<string, RequestHandler>()
  for (const id of Object.keys(build.routes)) {
    const group = /^routes\/api\.([^.]+)/.exec(id)?.[1]
    if (!group || groups.has(group)) continue
    const routes = Object.entries(build.routes).filter(
      ([routeId]) =>
        routeId === 'root' || routeId === `routes/api.${group}` || routeId.startsWith(`routes/api.${group}.`),
    )
    groups.set(group, createRequestHandler({ build: { ...build, routes: Object.fromEntries(routes) }, mode }))
  }
  return (req, res, next) => {
    const handler = groups.get(req.path.split('/')[2] ?? '')
    if (handler) handler(req, res, next)
    else next()
  }
}
