import { json, type ServerBuild } from '@remix-run/node'
import { asServiceUnavailable } from '#app/utils/database-outage.server.ts'

type RouteModule = ServerBuild['routes'][string]['module']

/**
 * The build with every page loader and action answering an unreachable database as a thrown 503
 * (with Retry-After): the root error boundary then renders its "briefly unavailable" page instead
 * of a 500. /api routes answer their own 503 JSON (apiHandler); the rule is one
 * (app/utils/database-outage.server.ts).
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
