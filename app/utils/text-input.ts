/**
 * The one rule for text that comes in from outside (JSON bodies, form fields, URL parameters):
 * control characters are refused with a 400 naming the field. PostgreSQL cannot store NUL in text
 * (it used to surface as a 500), and no name, prompt, note or email legitimately contains the
 * others. Tab and line breaks (LF, and the CR browsers send before it in a textarea) are allowed;
 * so is every printable character. Strings that are not well-formed UTF-16 (a lone surrogate) are
 * refused too: they cannot be encoded faithfully.
 *
 * Every body reader calls `assertPlainText` on what it read (api.server.ts readJson, multipart.server.ts,
 * form-body.server.ts), and apiHandler on the route's parameters and query string, so no schema can
 * forget it.
 */
import { badRequest } from '#domain/http-error.server.ts'

// C0 controls except tab (09), line feed (0A) and carriage return (0D); DEL and the C1 controls.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/

export function isPlainText(text: string) {
  return !CONTROL_CHARACTER.test(text) && text.isWellFormed()
}

/**
 * The name of the first field of `input` (a string, an array, a plain object, FormData or
 * URLSearchParams, nested to any depth) whose name or text value is not plain text, or null.
 * Files are not text and are skipped. Walks with an explicit stack: deeply nested JSON cannot
 * overflow the call stack.
 */
export function findControlCharacterField(input: unknown, name = 'body'): string | null {
  const pending: Array<[string, unknown]> = [[name, input]]
  while (pending.length > 0) {
    const [field, value] = pending.pop() as [string, unknown]
    if (typeof value === 'string') {
      if (!isPlainText(value)) return field
    } else if (value instanceof FormData || value instanceof URLSearchParams) {
      for (const [key, entry] of value.entries()) pending.push([key, entry])
    } else if (Array.isArray(value)) {
      for (const entry of value) pending.push([field, entry])
    } else if (value !== null && typeof value === 'object' && !(value instanceof Blob)) {
      for (const [key, entry] of Object.entries(value)) {
        if (!isPlainText(key)) return field
        pending.push([key, entry])
      }
    }
  }
  return null
}

/** Throws a 400 naming the first field that holds a control character. */
export function assertPlainText(input: unknown, name?: string) {
  const field = findControlCharacterField(input, name)
  if (field !== null)
    throw badRequest(`The field "${printable(field)}" contains a control character, which is not allowed`)
}

/** A field name safe to repeat in a message (the name itself may be the offender). */
function printable(field: string) {
  return [...field]
    .map((char) => (isPlainText(char) ? char : '?'))
    .join('')
    .slice(0, 100)
}
