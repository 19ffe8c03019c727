/**
 * The Content-Security-Policy directives (decision 0020). Pages get a policy with a fresh nonce per
 * request: only the site's own bundles and the inline scripts Remix and React render with that
 * nonce may run. Every other answer (/api, media, static files) gets a policy that allows nothing,
 * so a stored file opened directly can never run or load anything.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Env } from '#platform/env.server.ts'
import { isHttps } from '#platform/public-url.server.ts'
import { checkoutOrigin } from '#platform/stripe.server.ts'

/** Where browsers send violation reports (app/routes/csp-report.ts): `report-uri` takes the path, `report-to` the group name. */
export const CSP_REPORT_PATH = '/csp-report'
export const CSP_REPORT_GROUP = 'csp-endpoint'

type PolicyEnv = Pick<Env, 'GOOGLE_AUTHORIZATION_URL' | 'PUBLIC_URL' | 'STRIPE_SECRET_KEY' | 'STRIPE_API_URL'>

/** A source, or (helmet's form) a function answering one per request, such as the nonce's. */
type Source = string | ((req: IncomingMessage, res: ServerResponse) => string)
export type Directives = Record<string, Source[]>

/**
 * The pages' policy; `nonceSource` answers `'nonce-…'` for the request being answered. `devOrigin`
 * is remix dev's (REMIX_DEV_ORIGIN, under `npm run dev` only): the pages listen to its WebSocket
 * for updates after a rebuild.
 */
export function documentDirectives(env: PolicyEnv, nonceSource: Source, devOrigin?: string): Directives {
  const self = "'self'"
  const checkout = checkoutOrigin(env)
  return {
    'default-src': [self],
    'script-src': [self, nonceSource],
    'script-src-attr': ["'none'"],
    // The site's stylesheets are inlined into the head with this nonce (decision 0021); no style
    // attribute is needed: React sets client-rendered style props (recharts) through the DOM, which CSP allows.
    'style-src': [self, nonceSource],
    // data: is the profile page's avatar preview, blob: the generators' photo previews.
    'img-src': [self, 'data:', 'blob:'],
    'media-src': [self, 'blob:'],
    'font-src': [self],
    'connect-src': [self, ...(devOrigin ? [new URL(devOrigin).origin.replace(/^http/, 'ws')] : [])],
    'frame-src': ["'none'"],
    'object-src': ["'none'"],
    'base-uri': [self],
    'frame-ancestors': ["'none'"],
    // The Google sign-in link leaves through a redirect; listed so a future form post may too. The
    // purchase form's "Pay by card" is answered with a redirect to Stripe Checkout (decision 0041).
    'form-action': [self, new URL(env.GOOGLE_AUTHORIZATION_URL).origin, ...(checkout ? [checkout] : [])],
    ...(isHttps(env) ? { 'upgrade-insecure-requests': [] } : {}),
    ...reportingDirectives(env),
  }
}

/** Everything but pages: nothing may load, run or frame the answer. */
export function resourceDirectives(env: PolicyEnv): Directives {
  return { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"], ...reportingDirectives(env) }
}

/**
 * Chromium honours `report-to` (the Reporting API, batched) only on https and then ignores
 * `report-uri`; on http it would send nothing at all. So `report-to` is named on https only;
 * `report-uri` is for the other browsers and for http (local runs, the e2e tests).
 */
function reportingDirectives(env: PolicyEnv): Directives {
  return {
    'report-uri': [CSP_REPORT_PATH],
    ...(isHttps(env) ? { 'report-to': [CSP_REPORT_GROUP] } : {}),
  }
}
