import type { IncomingMessage } from 'node:http'

/**
 * What Express reads off a request's URL and headers (`req.path`, `req.protocol`, the host with
 * `trust proxy`), for the requests answered without Express (server/app.ts).
 */

/** The path without its query string, as Express's `req.path`. */
export function requestPath(req: IncomingMessage) {
  const url = req.url ?? '/'
  if (!url.startsWith('/')) return safePathname(url)
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

function safePathname(url: string) {
  try {
    return new URL(url).pathname
  } catch {
    return url
  }
}

/**
 * The request's full URL as Remix's express adapter builds it: the proxy's protocol and host
 * (the app trusts its proxy), with the port sent.
 */
export function requestUrl(req: IncomingMessage) {
  const forwardedProto = firstValue(req.headers['x-forwarded-proto'])
  const protocol = forwardedProto || ('encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http')
  const forwardedHost = headerText(req.headers['x-forwarded-host'])
  const host = firstValue(forwardedHost) || headerText(req.headers.host)
  const port = portOf(forwardedHost) ?? portOf(headerText(req.headers.host))
  const hostname = withoutPort(host)
  return `${protocol}://${port ? `${hostname}:${port}` : hostname}${req.url ?? '/'}`
}

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : (value ?? ''))

const firstValue = (value: string | string[] | undefined) => headerText(value).split(',')[0].trim()

const portOf = (host: string) => /:(\d+)$/.exec(host)?.[1]

/** `example.com:8080` → `example.com`, `[::1]:3000` → `[::1]`. */
function withoutPort(host: string) {
  const colon = host.indexOf(':', host.startsWith('[') ? host.indexOf(']') + 1 : 0)
  return colon === -1 ? host : host.slice(0, colon)
}
