import { json } from '@remix-run/node'

interface HttpErrorOptions {
  /** Fields the API answers beside `message` (e.g. `needPurchase`). */
  extra?: Record<string, unknown>
  /** A stable reason, for pages that word the refusal themselves (another language, a form field). */
  code?: string
  /** The form field the refusal is about, for pages that show it beside that field. */
  field?: string
  /** Response headers the API answer carries (e.g. `Retry-After`). */
  headers?: Record<string, string>
}

/**
 * The one error the domain throws for a refusal meant for the user, with the HTTP status it
 * deserves. Routes turn it into HTTP: API routes (apiHandler) answer `{ message, ...extra }` with
 * the status, with `field` when it names one; page actions show the message on their form. Anything else that escapes is a 500
 * without internals.
 */
export class HttpError extends Error {
  readonly status: number
  readonly extra: Record<string, unknown>
  readonly code: string | undefined
  readonly field: string | undefined
  readonly headers: Record<string, string>

  constructor(status: number, message: string, { extra = {}, code, field, headers = {} }: HttpErrorOptions = {}) {
    super(message)
    this.name = 'HttpError'
    this.status = status
    this.extra = extra
    this.code = code
    this.field = field
    this.headers = headers
  }
}

export const badRequest = (message: string) => new HttpError(400, message)
export const forbidden = (message = 'Access denied') => new HttpError(403, message)
export const notFound = (message = 'Not found') => new HttpError(404, message)
export const payloadTooLarge = (message: string) => new HttpError(413, message)

/** The API's answer to a refusal: `{ message, field?, ...extra }` (the field when the refusal names one). */
export function errorResponse(error: HttpError) {
  const field = error.field === undefined ? {} : { field: error.field }
  return json({ message: error.message, ...field, ...error.extra }, { status: error.status, headers: error.headers })
}
