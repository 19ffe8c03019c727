/**
 * The web's request path without a Remix build on disk: express with the production request
 * logging (server/request-log.ts) in front of Remix's own express adapter, serving the real route
 * modules given (resource routes: loaders and actions, no document rendering).
 */
import type { AddressInfo } from 'node:net'
import { createRequestHandler } from '@remix-run/express'
import type { ServerBuild } from '@remix-run/node'
import express from 'express'
import type { AppLogger } from '#app/utils/logger.server.ts'
import type { Metrics } from '#app/utils/metrics.server.ts'
import { instrumentRoutes, logRequests, markUnmatched } from '../../server/request-log.ts'

type RouteModule = ServerBuild['routes'][string]['module']

/** `routes`: URL path (`api/async-image/generate`) → the resource route module serving it. */
export async function startWebServer(routes: Record<string, object>, logger: AppLogger, metrics: Metrics) {
  const build = instrumentRoutes(buildOf(routes))
  const app = express()
  app.use(logRequests(logger, metrics))
  app.use(markUnmatched)
  app.all('*', createRequestHandler({ build, mode: 'production' }))
  const server = app.listen(0)
  await new Promise((resolve) => server.once('listening', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

function buildOf(modules: Record<string, object>): ServerBuild {
  const routes: ServerBuild['routes'] = { root: { id: 'root', path: '', module: {} as RouteModule } }
  for (const [path, module] of Object.entries(modules)) {
    const id = `routes/${path.replaceAll('/', '.')}`
    routes[id] = { id, parentId: 'root', path, module: module as RouteModule }
  }
  return {
    mode: 'production',
    entry: { module: {} as ServerBuild['entry']['module'] },
    routes,
    assets: { entry: { module: '', imports: [] }, routes: {}, url: '', version: 'test' },
    publicPath: '/build/',
    assetsBuildDirectory: 'public/build',
    future: {},
    isSpaMode: false,
    basename: undefined,
  } as unknown as ServerBuild
}
