import { json } from '@remix-run/node'

/**
 * An error with an HTTP status and a message meant for the user. API routes answer it as
 * `{ message, ...extra }` with the status; anything else that escapes becomes a generic 500.
 */
export class HttpError extends Error {
  readonly status: number
  readonly extra: Record<string, unknown>

  constructor(status: number, message: string, extra: Record<string, unknown> = {}) {
    super(message)
    this.name = 'HttpError'
    this.status = status
    this.extra = extra
  }
}

export const badRequest = (message: string) => new HttpError(400, message)
export const unauthorized = (message = 'Please log in first') => new HttpError(401, message)
export const forbidden = (message = 'Access denied') => new HttpError(403, message)
export const notFound = (message = 'Not found') => new HttpError(404, message)
export const payloadTooLarge = (message: string) => new HttpError(413, message)

export function errorResponse(error: HttpError) {
  return json({ message: error.message, ...error.extra }, { status: error.status })
}
