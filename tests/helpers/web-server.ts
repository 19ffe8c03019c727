import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { ServerBuild } from '@remix-run/node'
import { Agent } from 'undici'
import { type Env, getEnv } from '#platform/env.server.ts'
import { createWebApp, type RequestObservers } from '../../server/app.ts'

/**
 * The real web app (server/app.ts: express, the /api router, the early-answer and client-address
 * layers) over real HTTP on 127.0.0.1, serving the /api route modules as they are in app/routes,
 * so integration tests need no `remix build`. Remix's own flat-routes reader names the routes.
 * With `observers`, every request also gets its log line and metrics, as in production.
 */
const require = createRequire(import.meta.url)
const { flatRoutes } = require('@remix-run/dev/dist/config/flat-routes.js') as {
  flatRoutes: (appDirectory: string, ignored: string[]) => Record<string, RouteEntry>
}

interface RouteEntry {
  id: string
  parentId?: string
  path?: string
  index?: boolean
  caseSensitive?: boolean
  file: string
}

/** The /api routes, and `resourceRoutes` (ids such as `routes/csp-report`) besides. */
export async function apiBuild(resourceRoutes: string[] = []): Promise<ServerBuild> {
  const appDirectory = path.resolve('app')
  const routes: Record<string, unknown> = {
    root: { id: 'root', path: '', module: { default: () => null } },
  }
  for (const route of Object.values(flatRoutes(appDirectory, ['**/.*', '**/*.test.*']))) {
    if (!route.id.startsWith('routes/api.') && !resourceRoutes.includes(route.id)) continue
    routes[route.id] = { ...route, module: await import(path.join(appDirectory, route.file)) }
  }
  return {
    routes,
    entry: { module: { default: () => new Response('No pages here', { status: 404 }) } },
    assets: { entry: { module: '', imports: [] }, routes: {}, url: '', version: 'test' },
    future: {},
    publicPath: '/build/',
    assetsBuildDirectory: 'public/build',
    mode: 'test',
    isSpaMode: false,
  } as unknown as ServerBuild
}

export async function startWebServer(env: Partial<Env> = {}, observers?: RequestObservers, build?: ServerBuild) {
  const app = createWebApp(build ?? (await apiBuild()), { ...getEnv(), ...env }, process.cwd(), observers)
  const server = http.createServer(app).listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * A client with its own kept-alive connection pool (Node's fetch, through an undici Agent), from
 * `localAddress` on loopback (127.0.0.1, 127.0.0.2, …: every 127/8 address reaches the server).
 */
export function httpClient(origin: string, { localAddress = '127.0.0.1', connections = 1 } = {}) {
  const agent = new Agent({ connections, localAddress })
  return {
    fetch: (path: string, init: RequestInit = {}) =>
      fetch(origin + path, { ...init, dispatcher: agent } as RequestInit & { dispatcher: Agent }),
    close: () => agent.close(),
  }
}
