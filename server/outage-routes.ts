import { json, type ServerBuild } from '@remix-run/node'
import type { RequestHandler } from 'express'
import { RETRY_AFTER_SECONDS, asServiceUnavailable } from '#platform/service-unavailable.server.ts'

type RouteModule = ServerBuild['routes'][string]['module']

/**
 * The build with every page loader and action answering an unreachable database (or a full pool,
 * or media storage away) as a thrown 503 with Retry-After: the root error boundary then renders its
 * "briefly unavailable" page instead of a 500. /api routes answer their own 503 JSON (apiHandler);
 * the rule is one (platform/service-unavailable.server.ts).
 */
export function answerOutagesWith503(build: ServerBuild): ServerBuild {
  const routes = Object.fromEntries(
    Object.entries(build.routes).map(([id, route]) => {
      const module: RouteModule = { ...route.module }
      if (route.module.loader) module.loader = guarded(route.module.loader)
      if (route.module.action) module.action = guarded(route.module.action)
      return [id, { ...route, module }]
    }),
  )
  return { ...build, routes }
}

function guarded<Args, Result>(handler: (args: Args) => Promise<Result> | Result) {
  return async (args: Args) => {
    try {
      return await handler(args)
    } catch (error) {
      const unavailable = asServiceUnavailable(error)
      if (!unavailable) throw error
      throw json({ message: unavailable.message }, { status: unavailable.status, headers: unavailable.headers })
    }
  }
}

/**
 * Remix renders a page's thrown 503 without the thrown response's headers: every 503 answer that
 * lacks `Retry-After` gets it here, just before its headers go out.
 */
export const retryAfterOn503: RequestHandler = (_req, res, next) => {
  const writeHead = res.writeHead
  res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
    if ((args[0] ?? this.statusCode) === 503 && !this.hasHeader('Retry-After')) {
      this.setHeader('Retry-After', String(RETRY_AFTER_SECONDS))
    }
    return writeHead.apply(this, args)
  } as typeof writeHead
  next()
}
