/**
 * One JSON log line and one `http_request_duration_seconds` observation per request, under a
 * request id (Fly's `fly-request-id`, else a fresh one) that is returned as `x-request-id` and
 * stays readable for everything the request does (platform/request-context.server.ts), so a job
 * it enqueues carries it to the worker.
 *
 * The route label is the pattern of the deepest route whose loader or action ran
 * (`/api/async-image/task/:id`): instrumentRoutes wraps them to note it. Requests that never reach
 * a route are `static` (files) or `unmatched`.
 */
import { randomUUID } from 'node:crypto'
import type { ServerBuild } from '@remix-run/node'
import type { AppLogger } from '#platform/logger.server.ts'
import type { Metrics } from '#platform/metrics.server.ts'
import {
  currentRequestContext,
  requestIdFrom,
  runWithRequestContext,
  type RequestContext,
} from '#platform/request-context.server.ts'
import type { NodeHandler } from './node-handler.ts'
import { requestPath } from './request-url.ts'

const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

export function logRequests(logger: AppLogger, metrics: Metrics | null): NodeHandler {
  return (req, res, next) => {
    const started = performance.now()
    const context: RequestContext = { requestId: requestIdFrom(req.headers['fly-request-id']?.toString(), randomUUID) }
    res.setHeader('x-request-id', context.requestId)
    res.once('finish', () => {
      const seconds = (performance.now() - started) / 1000
      const route = context.route ?? 'static'
      const method = req.method && methods.has(req.method) ? req.method : 'OTHER'
      // A live stream lasts minutes by design: its length is no answer time.
      const streamed = String(res.getHeader('Content-Type') ?? '').startsWith('text/event-stream')
      if (!streamed) metrics?.httpRequestDuration.observe({ method, route, status: res.statusCode }, seconds)
      // The path only: query strings can hold tokens and codes (links in emails).
      logger.info(
        {
          reqId: context.requestId,
          method,
          path: requestPath(req),
          route,
          status: res.statusCode,
          ms: Math.round(seconds * 10_000) / 10,
        },
        'request',
      )
    })
    runWithRequestContext(context, next)
  }
}

/** Marks requests that got past the static files: from here on, no route running means none matched. */
export const markUnmatched: NodeHandler = (_req, _res, next) => {
  const context = currentRequestContext()
  if (context) context.route = 'unmatched'
  next()
}

type RouteModule = ServerBuild['routes'][string]['module']

/** The build with every loader and action noting its route pattern in the request context. */
export function instrumentRoutes(build: ServerBuild): ServerBuild {
  const routes = Object.fromEntries(
    Object.entries(build.routes).map(([id, route]) => {
      const { pattern, depth } = patternOf(build, id)
      const module: RouteModule = { ...route.module }
      if (route.module.loader) module.loader = noting(route.module.loader, pattern, depth)
      if (route.module.action) module.action = noting(route.module.action, pattern, depth)
      return [id, { ...route, module }]
    }),
  )
  return { ...build, routes }
}

function noting<Args, Result>(handler: (args: Args) => Result, pattern: string, depth: number) {
  return (args: Args) => {
    const context = currentRequestContext()
    if (context && (context.routeDepth === undefined || depth >= context.routeDepth)) {
      context.route = pattern
      context.routeDepth = depth
    }
    return handler(args)
  }
}

/** `/api/async-image/task/:id` for `routes/api.async-image.task.$id`: the paths from the root down. */
function patternOf(build: ServerBuild, id: string) {
  const segments: string[] = []
  let depth = 0
  let route: ServerBuild['routes'][string] | undefined = build.routes[id]
  while (route) {
    if (route.path) segments.unshift(route.path)
    depth += 1
    route = route.parentId ? build.routes[route.parentId] : undefined
  }
  return { pattern: `/${segments.join('/')}`.replace(/\/+/g, '/'), depth }
}
