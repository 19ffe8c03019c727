import { createRequestHandler } from '@remix-run/express'
import type { ServerBuild } from '@remix-run/node'
import type { RequestHandler, Response } from 'express'

/**
 * Every request under /api. Remix ranks every route of its build on each request, a fifth of the
 * CPU of a status poll, so an /api request is matched against the routes of its own group only
 * (`/api/<group>/…`, the file names `api.<group>.….ts`; decision 0008). Before Remix sees it, the
 * path and method are checked here: an /api path no route serves answers a JSON 404, a method the
 * route does not take a JSON 405 with `Allow` (Remix itself would answer these with a 500 or HTML).
 *
 * A route takes GET and HEAD when it has a loader, and POST when it has an action, unless its
 * `handle` names the action's methods (`export const handle = apiMethods('PUT')`).
 */
export function apiRequestHandler(build: ServerBuild, mode: string): RequestHandler {
  const routes = apiRoutes(build)
  const handlers = new Map<string, RequestHandler>()
  for (const group of new Set(routes.map((route) => route.group))) {
    const ids = new Set(['root', ...routes.filter((route) => route.group === group).flatMap((route) => route.ids)])
    const groupRoutes = Object.fromEntries(Object.entries(build.routes).filter(([id]) => ids.has(id)))
    handlers.set(group, createRequestHandler({ build: { ...build, routes: groupRoutes }, mode }))
  }
  return (req, res, next) => {
    // One trailing slash is ignored, as Remix does: `/api/auth/me/` is `/api/auth/me`.
    const segments = req.path
      .replace(/(.)\/$/, '$1')
      .split('/')
      .slice(1)
    const route = routes.find((candidate) => matches(candidate.segments, segments))
    if (!route) return answer(res, 404, 'There is no such API endpoint')
    if (!route.methods.includes(req.method)) {
      res.setHeader('Allow', route.methods.join(', '))
      return answer(res, 405, `${req.method} is not allowed here; use ${route.methods.join(' or ')}`)
    }
    handlers.get(route.group)?.(req, res, next)
  }
}

interface ApiRoute {
  group: string
  /** The path's segments; `:name` matches any one non-empty segment. */
  segments: string[]
  methods: string[]
  /** The route and its parents (a nested route file), as Remix needs them in the group's build. */
  ids: string[]
}

function apiRoutes(build: ServerBuild): ApiRoute[] {
  const result: ApiRoute[] = []
  for (const [id, route] of Object.entries(build.routes)) {
    const group = /^routes\/api\.([^.]+)/.exec(id)?.[1]
    const { loader, action, handle } = route.module as { loader?: unknown; action?: unknown; handle?: unknown }
    if (!group || (!loader && !action)) continue
    const ids: string[] = []
    const paths: string[] = []
    for (let current: typeof route | undefined = route; current; current = build.routes[current.parentId ?? '']) {
      ids.push(current.id)
      if (current.path) paths.unshift(current.path)
    }
    const actionMethods = (handle as { methods?: string[] } | undefined)?.methods ?? ['POST']
    result.push({
      group,
      segments: paths.join('/').split('/'),
      methods: [...(loader ? ['GET', 'HEAD'] : []), ...(action ? actionMethods : [])],
      ids,
    })
  }
  return result
}

function matches(pattern: string[], segments: string[]) {
  return (
    pattern.length === segments.length &&
    pattern.every((part, index) => (part.startsWith(':') ? segments[index] !== '' : part === segments[index]))
  )
}

function answer(res: Response, status: number, message: string) {
  res.status(status).json({ message })
}
