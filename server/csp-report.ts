import express, { type RequestHandler } from 'express'
import { parseCspReports, recordCspViolations } from '#app/features/operations/csp-reports.server.ts'
import { CLIENT_ADDRESS_HEADER } from '#app/utils/client-address.server.ts'
import { getDb } from '#app/utils/db.server.ts'
import type { Metrics } from '#app/utils/metrics.server.ts'
import { countHits } from '#app/utils/rate-limit.server.ts'

const REPORT_TYPES = ['application/csp-report', 'application/reports+json']
// A browser batches a page's reports; a page that breaks sends a few dozen at most.
const REPORTS_PER_ADDRESS_PER_MINUTE = 60

/**
 * POST /csp-report: where browsers send Content-Security-Policy violations. No session (reports
 * come without cookies) and no CSRF check, so it is mounted before both; bodies are at most 64 kB
 * of JSON and each address may send 60 a minute.
 */
export function cspReportEndpoint(metrics: Metrics | null): RequestHandler[] {
  return [
    express.json({ type: REPORT_TYPES, limit: '64kb' }),
    async (req, res, next) => {
      try {
        const contentType = req.headers['content-type'] ?? ''
        if (!REPORT_TYPES.some((type) => contentType.toLowerCase().startsWith(type))) {
          res.status(415).json({ message: `Send ${REPORT_TYPES.join(' or ')}` })
          return
        }
        const address = String(req.headers[CLIENT_ADDRESS_HEADER] ?? 'unknown')
        const key = `csp-report:ip:${address}`
        const [limited] = await countHits(getDb(), [{ key, limit: REPORTS_PER_ADDRESS_PER_MINUTE, windowSeconds: 60 }])
        if (limited) {
          res.status(429).json({ message: 'Too many reports, please try again in a minute' })
          return
        }
        await recordCspViolations(getDb(), parseCspReports(contentType, req.body), metrics)
        res.status(204).end()
      } catch (error) {
        next(error)
      }
    },
  ]
}
