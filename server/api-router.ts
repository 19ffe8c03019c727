import { createRequestHandler } from '@remix-run/express'
import { type LoaderFunction, type ServerBuild, writeReadableStreamToWritable } from '@remix-run/node'
import type { Request as ExpressRequest, RequestHandler, Response } from 'express'
import { takeEventStreamSource, writeEventStream } from '#platform/event-stream.server.ts'

/**
 * Every request under /api. Remix ranks every route of its build on each request, a fifth of the
 * CPU of a status poll, so an /api request is matched against the routes of its own group only
 * (`/api/<group>/…`, the file names `api.<group>.….ts`; decision 0008). Before Remix sees it, the
 * path and method are checked here: an /api path no route serves answers a JSON 404, a method the
 * route does not take a JSON 405 with `Allow` (Remix itself would answer these with a 500 or HTML).
 *
 * A route takes GET and HEAD when it has a loader, and POST when it has an action, unless its
 * `handle` names the action's methods (`export const handle = apiMethods('PUT')`).
 *
 * A GET calls the route's loader directly (`answerWithLoader`): every /api route is a resource
 * route, whose loader's Response is the answer as it is, and Remix's request handler (matching the
 * path again, building its router's state, piping even a small JSON body as a stream) was half
 * of a status poll's CPU (decision 0045). Other methods go through Remix.
 */
export function apiRequestHandler(build: ServerBuild, mode: string, compress: RequestHandler): RequestHandler {
  const routes = apiRoutes(build)
  const handlers = new Map<string, RequestHandler>()
  // The routes by their path's first segment after /api: a request is compared with its group's only.
  const groups = new Map<string, ApiRoute[]>()
  for (const route of routes) groups.set(route.segments[1], [...(groups.get(route.segments[1]) ?? []), route])
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
    const route = groups.get(segments[1])?.find((candidate) => matches(candidate.segments, segments))
    if (req.method === 'GET' && route?.loader) {
      return void answerWithLoader(route, segments, req, res, compress).catch(next)
    }
    compress(req, res, () => {
      if (!route) return answer(res, 404, 'There is no such API endpoint')
      if (!route.methods.includes(req.method)) {
        res.setHeader('Allow', route.methods.join(', '))
        return answer(res, 405, `${req.method} is not allowed here; use ${route.methods.join(' or ')}`)
      }
      handlers.get(route.group)?.(req, res, next)
    })
  }
}

/**
 * A JSON answer smaller than this goes out as it is (compression's own threshold): the compression
 * middleware, which makes every answer it wraps a chunked one, only wraps those it may shrink.
 */
const COMPRESSION_THRESHOLD = 1024

async function answerWithLoader(
  route: ApiRoute,
  segments: string[],
  req: ExpressRequest,
  res: Response,
  compress: RequestHandler,
) {
  const params: Record<string, string> = {}
  route.segments.forEach((part, index) => {
    if (part.startsWith(':')) params[part.slice(1)] = decodeSegment(segments[index])
  })
  // The request's signal: aborted when the client goes away before the answer is complete.
  const controller = new AbortController()
  const abortOnClose = () => res.writableFinished || controller.abort()
  res.on('close', abortOnClose)
  let answer: globalThis.Response
  try {
    answer = (await route.loader!({
      request: fetchRequest(req, controller.signal),
      params,
      context: {},
    })) as globalThis.Response
  } catch (thrown) {
    if (!(thrown instanceof globalThis.Response)) throw thrown
    answer = thrown
  }
  res.statusMessage = answer.statusText
  res.status(answer.status)
  for (const [name, value] of answer.headers) res.append(name, value)
  const type = answer.headers.get('content-type') ?? ''
  const body = answer.body
  // The live stream: written straight to the connection, whose close ends it
  // (platform/event-stream.server.ts); the request and its signal are done with.
  const eventSource = body && takeEventStreamSource(body)
  if (eventSource) {
    res.off('close', abortOnClose)
    res.flushHeaders()
    return writeEventStream(eventSource, res)
  }
  if (!body) return void res.end()
  // A JSON answer is written at once rather than piped, as the bytes the loader made (a large one
  // may come gzipped already: api.analytics.overview.ts); only one it may shrink is compressed (the
  // compression middleware makes every answer it wraps a chunked one).
  if (type.startsWith('application/json')) {
    const bytes = Buffer.from(await answer.arrayBuffer())
    if (bytes.byteLength >= COMPRESSION_THRESHOLD) return compress(req, res, () => res.end(bytes))
    // What the compression middleware says of every JSON answer, compressed or not.
    res.vary('Accept-Encoding')
    return void res.end(bytes)
  }
  // Compressed here rather than by the app's middleware (server/app.ts): a live stream, which is
  // never compressed, would carry compression's wrappers for its whole life.
  await new Promise<void>((resolve) => compress(req, res, () => resolve()))
  await writeReadableStreamToWritable(body, res)
}

/** The request as Remix's adapter gives it to a loader. */
function fetchRequest(req: ExpressRequest, signal: AbortSignal) {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((item) => headers.append(name, item))
    else if (value !== undefined) headers.set(name, value)
  }
  return new Request(`${req.protocol}://${requestHost(req)}${req.originalUrl}`, { headers, signal })
}

/** The host as Remix's express adapter gives it: the proxy's (trust proxy) name, with the port sent. */
function requestHost(req: ExpressRequest) {
  const port = /:(\d+)$/.exec(req.get('x-forwarded-host') ?? '')?.[1] ?? /:(\d+)$/.exec(req.get('host') ?? '')?.[1]
  return port ? `${req.hostname}:${port}` : req.hostname
}

/** A path parameter as Remix gives it: %-decoded, or as sent when that is malformed. */
function decodeSegment(segment: string) {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

interface ApiRoute {
  group: string
  /** The path's segments; `:name` matches any one non-empty segment. */
  segments: string[]
  methods: string[]
  /** The route and its parents (a nested route file), as Remix needs them in the group's build. */
  ids: string[]
  loader?: LoaderFunction
}

function apiRoutes(build: ServerBuild): ApiRoute[] {
  const result: ApiRoute[] = []
  for (const [id, route] of Object.entries(build.routes)) {
    const group = /^routes\/api\.([^.]+)/.exec(id)?.[1]
    const { loader, action, handle } = route.module as {
      loader?: LoaderFunction
      action?: unknown
      handle?: unknown
    }
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
      loader,
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
