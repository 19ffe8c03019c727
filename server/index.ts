// The web process: serves the Remix app, its /api resource routes, static assets and media.
import http from 'node:http'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { logDevReady, type ServerBuild } from '@remix-run/node'
import sharp from 'sharp'
import { registerDatabaseMetrics } from './database-metrics.ts'
import { getDb } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { initLogging } from '#platform/logger.server.ts'
import { startMetricsServer } from '#platform/metrics-server.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { moderationState } from '#platform/moderation-state.server.ts'
import { publicOrigin } from '#platform/public-url.server.ts'
import { cardPaymentsState } from '#platform/stripe.server.ts'
import { exitOnStartupError } from '#platform/startup.server.ts'
import { createWebApp } from './app.ts'
import { configureWebPool } from './web-pool.ts'

const root = path.resolve(fileURLToPath(import.meta.url), '../..')

// The web only re-encodes uploads, one at a time (domain/generation/task-submission.server.ts);
// a single libvips thread is enough and keeps the process's memory low. The worker keeps the default.
sharp.concurrency(1)

const logger = initLogging('web')
configureWebPool()

try {
  const env = getEnv()
  const build = (await import(path.join(root, 'build/index.js'))) as ServerBuild
  const metrics = env.METRICS_PORT ? getMetrics() : null
  if (metrics) registerDatabaseMetrics(metrics, getDb())
  startMetricsServer(env.METRICS_PORT)
  const app = createWebApp(build, env, root, { logger, metrics })

  const server = http.createServer(app).listen(env.PORT, () => {
    console.log(`[web] Pawtrait is running at ${publicOrigin(env)}`)
    console.log(`[web] Moderation ${moderationState().summary}`)
    console.log(`[web] Card payments ${cardPaymentsState().summary}`)
    // Under `npm run dev`: tells remix dev that this build is served, so it may update the open pages.
    if (process.env.REMIX_DEV_ORIGIN) logDevReady(build)
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
