import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import helmet, { contentSecurityPolicy } from 'helmet'
import onHeaders from 'on-headers'
import { CSP_REPORT_GROUP, CSP_REPORT_PATH, documentDirectives, resourceDirectives } from './content-security-policy.ts'
import type { Env } from '#platform/env.server.ts'
import { isHttps } from '#platform/public-url.server.ts'
import type { NodeHandler } from './node-handler.ts'

// What the site never uses, switched off for it and for anything it might ever frame.
const PERMISSIONS_POLICY = [
  'accelerometer',
  'bluetooth',
  'browsing-topics',
  'camera',
  'display-capture',
  'geolocation',
  'gyroscope',
  'hid',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'serial',
  'usb',
]
  .map((feature) => `${feature}=()`)
  .join(', ')

/**
 * This request's CSP nonce (base64 of 16 random bytes), for Remix's load context (server/app.ts),
 * made when first asked for: an /api answer never needs one.
 */
export function cspNonceOf(res: ServerResponse & { locals?: { cspNonce?: string } }) {
  res.locals ??= {}
  return (res.locals.cspNonce ??= randomBytes(16).toString('base64'))
}

const noop = () => {}

/**
 * The headers every answer carries (decision 0020), set with helmet: nosniff, no framing,
 * strict-origin-when-cross-origin referrers, a same-origin opener, HSTS when PUBLIC_URL is https;
 * and a Permissions-Policy. The Content-Security-Policy is chosen as the answer's headers are
 * written, from its Content-Type: an HTML page gets the policy with this request's nonce and is
 * never stored by a cache (a stored nonce could be replayed); anything else gets a policy that
 * allows nothing. CSP_REPORT_ONLY=on sends the same policies as report-only.
 */
export function securityHeaders(env: Env): NodeHandler {
  const reportOnly = env.CSP_REPORT_ONLY === 'on'
  const documentPolicy = contentSecurityPolicy({
    useDefaults: false,
    reportOnly,
    directives: documentDirectives(env, (_req, res) => `'nonce-${cspNonceOf(res)}'`, process.env.REMIX_DEV_ORIGIN),
  })
  const resourcePolicy = contentSecurityPolicy({ useDefaults: false, reportOnly, directives: resourceDirectives(env) })
  const helmetHeaders = headersSetBy(
    helmet({
      contentSecurityPolicy: false,
      strictTransportSecurity: isHttps(env) ? { maxAge: 365 * 24 * 60 * 60, includeSubDomains: true } : false,
      xFrameOptions: { action: 'deny' },
      referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
      crossOriginOpenerPolicy: { policy: 'same-origin' },
    }),
  )
  return (req, res, next) => {
    for (const [name, value] of helmetHeaders) res.setHeader(name, value)
    res.setHeader('Permissions-Policy', PERMISSIONS_POLICY)
    if (isHttps(env)) res.setHeader('Reporting-Endpoints', `${CSP_REPORT_GROUP}="${CSP_REPORT_PATH}"`)
    onHeaders(res, () => {
      // A route's own Referrer-Policy (auth.callback's no-referrer) replaces the default, not joins it.
      const referrerPolicy = res.getHeader('Referrer-Policy')
      if (Array.isArray(referrerPolicy)) res.setHeader('Referrer-Policy', referrerPolicy.at(-1) ?? '')
      if (/^text\/html\b/i.test(String(res.getHeader('Content-Type') ?? ''))) {
        res.setHeader('Cache-Control', 'no-store')
        documentPolicy(req, res, noop)
      } else {
        resourcePolicy(req, res, noop)
      }
    })
    next()
  }
}

/**
 * The headers a helmet middleware sets, read once: none of them depends on the request, and setting
 * them from a list spares every answer a chain of a dozen middlewares.
 */
function headersSetBy(middleware: ReturnType<typeof helmet>) {
  const headers: Array<[string, string]> = []
  const recorder = {
    setHeader: (name: string, value: unknown) => void headers.push([name, String(value)]),
    // Its only removal, X-Powered-By, is a header nothing here sets (server/app.ts disables Express's).
    removeHeader: noop,
  }
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error
  })
  return headers
}
