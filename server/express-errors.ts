import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ErrorRequestHandler } from 'express'
import { asServiceUnavailable } from '#platform/service-unavailable.server.ts'
import { requestPath } from './request-url.ts'

/**
 * What express itself refuses before any route runs (a malformed %-escape in the path, a body
 * express could not read): answered as JSON `{ message }` with the error's status. Express's own
 * handler would answer an HTML page with the stack trace outside production.
 */
export const answerExpressErrors: ErrorRequestHandler = (error, req, res, next) => {
  if (res.headersSent) return next(error)
  answerError(error, req, res)
}

/** A failure no route answered, as JSON `{ message }`: a dependency away is a 503 with Retry-After. */
export function answerError(error: { status?: unknown }, req: IncomingMessage, res: ServerResponse) {
  if (res.headersSent) return void res.destroy()
  const unavailable = asServiceUnavailable(error)
  if (unavailable) return answerJson(res, unavailable.status, unavailable.message, unavailable.headers)
  const status = typeof error.status === 'number' && error.status >= 400 && error.status < 600 ? error.status : 500
  if (status >= 500) console.error('[web] unexpected error on', req.method, requestPath(req), error)
  const message =
    error instanceof URIError
      ? 'The address is malformed'
      : status >= 500
        ? 'Something went wrong, please try again later'
        : 'The request could not be read'
  answerJson(res, status, message)
}

function answerJson(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ message })
  res.statusCode = status
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value)
  res.setHeader('Content-Type', 'application/json; charset=utf-8')
  res.setHeader('Content-Length', Buffer.byteLength(body))
  res.end(body)
}
