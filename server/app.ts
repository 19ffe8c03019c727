import type { RequestListener } from 'node:http'
import path from 'node:path'
import zlib from 'node:zlib'
import type { ServerBuild } from '@remix-run/node'
import { createRequestHandler } from '@remix-run/express'
import compression from 'compression'
import express from 'express'
import { CLIENT_ADDRESS_HEADER, resolveClientAddress } from '#platform/client-address.server.ts'
import type { Env } from '#platform/env.server.ts'
import type { AppLogger } from '#platform/logger.server.ts'
import type { Metrics } from '#platform/metrics.server.ts'
import { apiRouter, isApiPath } from './api-router.ts'
import { CSP_REPORT_PATH } from './content-security-policy.ts'
import { rejectCrossSiteRequests } from './csrf.ts'
import { closeAfterEarlyAnswers } from './early-answers.ts'
import { answerError, answerExpressErrors } from './express-errors.ts'
import { answerOutagesWith503, retryAfterOn503 } from './outage-routes.ts'
import type { NodeHandler } from './node-handler.ts'
import { instrumentRoutes, logRequests, markUnmatched } from './request-log.ts'
import { cspNonceOf, securityHeaders } from './security-headers.ts'

/**
 * Brotli's quality for answers compressed as they are sent (the compression middleware's default
 * is 4): 5 makes the home page's HTML about 5 % smaller for a fifth of a millisecond more, which
 * keeps it within the first round trip of a slow phone connection (decision 0021).
 */
const BROTLI_QUALITY = 5

/** Where each request's log line and duration go (the process's logger, the metrics or none). */
export interface RequestObservers {
  logger: AppLogger
  metrics: Metrics | null
}

/**
 * The web app, a listener for Node's HTTP server: every request gets its log line and metrics, the
 * early-answer guard, the security headers and its client's address; a GET under /api is then
 * answered by its route's loader (server/api-router.ts); everything else goes on to Express: static
 * assets, CSRF, the other /api requests, then the Remix app. Built here rather than in index.ts so
 * that tests can serve a build over real HTTP.
 */
export function createWebApp(remixBuild: ServerBuild, env: Env, root: string, observers?: RequestObservers) {
  // Loaders and actions note their route pattern for the log line and the metrics' route label.
  const build = instrumentRoutes(remixBuild)
  // /api answers are compressed by the api router: a GET's once its loader answered, so a live
  // update stream never carries compression's wrappers, and small JSON not at all.
  const compress = compression({
    brotli: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
  }) as NodeHandler
  const api = apiRouter(build, env.NODE_ENV, compress)
  const everyRequest: NodeHandler[] = [
    ...(observers ? [logRequests(observers.logger, observers.metrics)] : []),
    closeAfterEarlyAnswers(),
    securityHeaders(env),
    (req, _res, next) => {
      req.headers[CLIENT_ADDRESS_HEADER] = resolveClientAddress(req.socket.remoteAddress, req.headers, env.TRUST_PROXY)
      next()
    },
  ]

  const app = express()
  app.disable('x-powered-by')
  app.set('trust proxy', true)
  app.use((req, res, next) => (isApiPath(req.path) ? next() : compress(req, res, next)))
  // Fingerprinted bundles can be cached forever; other public files for an hour.
  app.use('/build', express.static(path.join(root, 'public/build'), { immutable: true, maxAge: '1y' }))
  // API and media requests never name a public file: spare them the file-system lookup.
  const publicFiles = express.static(path.join(root, 'public'), { maxAge: '1h' })
  app.use((req, res, next) => (/^\/(api|media)\//.test(req.path) ? next() : publicFiles(req, res, next)))
  app.use(markUnmatched)
  // Browsers send CSP reports without cookies and with no Origin we could vouch for (app/routes/csp-report.ts).
  app.use(rejectCrossSiteRequests(env.PUBLIC_URL, [CSP_REPORT_PATH]))
  app.all(['/api', '/api/*'], api.handle)
  app.all(
    '*',
    retryAfterOn503,
    createRequestHandler({
      // /api routes answer an outage themselves (apiHandler); pages through their error boundary.
      build: answerOutagesWith503(build),
      mode: env.NODE_ENV,
      getLoadContext: (_req, res) => ({ cspNonce: cspNonceOf(res) }),
    }),
  )
  app.use(answerExpressErrors)

  const answer: RequestListener = (req, res) => {
    let index = 0
    const next = (error?: unknown) => {
      if (error) return answerError(error as { status?: unknown }, req, res)
      // What Express does for its layers: a throw is an answer, not a crashed process.
      try {
        if (index < everyRequest.length) return everyRequest[index++](req, res, next)
        // CSRF (Express's layer) refuses no GET: a read answered here skips nothing it would do.
        if (!api.answerRead(req, res)) app(req, res)
      } catch (thrown) {
        answerError(thrown as { status?: unknown }, req, res)
      }
    }
    next()
  }
  return answer
}
