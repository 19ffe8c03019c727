import { createRequestHandler } from '@remix-run/express'
import { type LoaderFunction, type ServerBuild, writeReadableStreamToWritable } from '@remix-run/node'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RequestHandler, Response } from 'express'
import { takeEventStreamSource, writeEventStream } from '#platform/event-stream.server.ts'
import { answerError } from './express-errors.ts'
import type { NodeHandler } from './node-handler.ts'
import { requestPath, requestUrl } from './request-url.ts'

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
 * A GET is answered by the route's loader, called directly, on Node's own request and response
 * (`answerRead`, before Express: server/app.ts): every /api route is a resource route, whose
 * loader's Response is the answer as it is, and Remix's request handler (matching the path again,
 * building its router's state, piping even a small JSON body as a stream) was half of a status
 * poll's CPU, Express's layers a sixth of what was left (decision 0045). Other methods go through
 * Express and Remix (`handle`).
 */
export function apiRouter(build: ServerBuild, mode: string, compress: NodeHandler) {
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
  const routeOf = (path: string) => {
    // One trailing slash is ignored, as Remix does: `/api/auth/me/` is `/api/auth/me`.
    const segments = path
      .replace(/(.)\/$/, '$1')
      .split('/')
      .slice(1)
    return { segments, route: groups.get(segments[1])?.find((candidate) => matches(candidate.segments, segments)) }
  }
  return {
    /** Answers a GET under /api whose route has a loader (true), without Express; false for any other request. */
    answerRead(req: IncomingMessage, res: ServerResponse): boolean {
      if (req.method !== 'GET') return false
      const path = requestPath(req)
      if (!isApiPath(path)) return false
      const { route, segments } = routeOf(path)
      if (!route?.loader) return false
      answerWithLoader(route, segments, req, res, compress).catch((error: unknown) =>
        answerError(error as { status?: unknown }, req, res),
      )
      return true
    },
    /** Every other request under /api, as Express hands it over. */
    handle: ((req, res, next) => {
      const { route } = routeOf(req.path)
      compress(req, res, () => {
        if (!route) return answer(res, 404, 'There is no such API endpoint')
        if (!route.methods.includes(req.method)) {
          res.setHeader('Allow', route.methods.join(', '))
          return answer(res, 405, `${req.method} is not allowed here; use ${route.methods.join(' or ')}`)
        }
        handlers.get(route.group)?.(req, res, next)
      })
    }) as RequestHandler,
  }
}

export const isApiPath = (path: string) => path === '/api' || path.startsWith('/api/')

/**
 * A JSON answer smaller than this goes out as it is (compression's own threshold): the compression
 * middleware, which makes every answer it wraps a chunked one, only wraps those it may shrink.
 */
const COMPRESSION_THRESHOLD = 1024

async function answerWithLoader(
  route: ApiRoute,
  segments: string[],
  req: IncomingMessage,
  res: ServerResponse,
  compress: NodeHandler,
) {
  const params: Record<string, string> = {}
  route.segments.forEach((part, index) => {
    if (part.startsWith(':')) params[part.slice(1)] = decodeSegment(segments[index])
  })
  let answer: globalThis.Response
  try {
    answer = (await route.loader!({ request: fetchRequest(req, res), params, context: {} })) as globalThis.Response
  } catch (thrown) {
    if (!(thrown instanceof globalThis.Response)) throw thrown
    answer = thrown
  }
  res.statusMessage = answer.statusText
  res.statusCode = answer.status
  for (const [name, value] of answer.headers)
    res.appendHeader(name, name === 'content-type' ? withCharset(value) : value)
  const type = answer.headers.get('content-type') ?? ''
  const body = answer.body
  // The live stream: written straight to the connection, whose close ends it
  // (platform/event-stream.server.ts).
  const eventSource = body && takeEventStreamSource(body)
  if (eventSource) {
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
    varyOnEncoding(res)
    return void res.end(bytes)
  }
  // Compressed here rather than by the app's middleware (server/app.ts): a live stream, which is
  // never compressed, would carry compression's wrappers for its whole life.
  await new Promise<void>((resolve) => compress(req, res, () => resolve()))
  await writeReadableStreamToWritable(body, res)
}

/** A text type without a charset gets UTF-8's, as Express's `res.set` gives it. */
const withCharset = (type: string) =>
  /^(text\/|application\/(javascript|json))/i.test(type) && !/;\s*charset\s*=/i.test(type)
    ? `${type}; charset=utf-8`
    : type

function varyOnEncoding(res: ServerResponse) {
  const vary = res.getHeader('Vary')
  if (!vary) return void res.setHeader('Vary', 'Accept-Encoding')
  if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(String(vary)))
    res.setHeader('Vary', `${String(vary)}, Accept-Encoding`)
}

/** The request as Remix's adapter gives it to a loader. */
function fetchRequest(req: IncomingMessage, res: ServerResponse) {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((item) => headers.append(name, item))
    else if (value !== undefined) headers.set(name, value)
  }
  return new LoaderRequest(requestUrl(req), headers, closeSignal(res))
}

/** A Fetch Request whose `signal` is made when first read (`closeSignal`). */
class LoaderRequest extends Request {
  readonly #signal: () => AbortSignal

  constructor(url: string, headers: Headers, signal: () => AbortSignal) {
    super(url, { headers })
    this.#signal = signal
  }

  override get signal() {
    return this.#signal()
  }
}

/**
 * Aborted when the client goes away before the answer is complete (a live stream's end), made when
 * first read: a Request given a signal to follow costs three times as much to build (undici links
 * the two through a weak reference), and only the live stream reads it. Its own function: an open
 * stream keeps the listener, which then holds nothing more.
 */
function closeSignal(res: ServerResponse) {
  const state: { controller?: AbortController; clientGone: boolean } = { clientGone: false }
  res.on('close', () => {
    if (res.writableFinished) return
    state.clientGone = true
    state.controller?.abort()
  })
  return () => {
    if (!state.controller) {
      state.controller = new AbortController()
      if (state.clientGone) state.controller.abort()
    }
    return state.controller.signal
  }
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
