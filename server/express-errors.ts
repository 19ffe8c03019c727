import type { ErrorRequestHandler } from 'express'
import { asServiceUnavailable } from '#platform/service-unavailable.server.ts'

/**
 * What express itself refuses before any route runs (a malformed %-escape in the path, a body
 * express could not read): answered as JSON `{ message }` with the error's status. Express's own
 * handler would answer an HTML page with the stack trace outside production.
 */
export const answerExpressErrors: ErrorRequestHandler = (error: { status?: unknown }, req, res, next) => {
  if (res.headersSent) return next(error)
  const unavailable = asServiceUnavailable(error)
  if (unavailable) return res.status(unavailable.status).set(unavailable.headers).json({ message: unavailable.message })
  const status = typeof error.status === 'number' && error.status >= 400 && error.status < 600 ? error.status : 500
  if (status >= 500) console.error('[web] unexpected error on', req.method, req.path, error)
  const message =
    error instanceof URIError
      ? 'The address is malformed'
      : status >= 500
        ? 'Something went wrong, please try again later'
        : 'The request could not be read'
  res.status(status).json({ message })
}
