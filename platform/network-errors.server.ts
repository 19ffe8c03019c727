/**
 * What "the other side could not be reached" looks like, whoever we called: the socket and DNS
 * codes of Node and of undici (fetch). A bad URL, a TLS certificate refused or a malformed header
 * carry none of them: those are mistakes to fix, not outages to wait out.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
])

export function hasNetworkCode(error: object) {
  const { code } = error as { code?: unknown }
  return typeof code === 'string' && NETWORK_CODES.has(code)
}

/** Whether `test` holds for `error` or an error it wraps (its `cause`, an AggregateError's `errors`). */
export function someWrapped(error: unknown, test: (error: object) => boolean, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false
  if (test(error)) return true
  const { cause, errors } = error as { cause?: unknown; errors?: unknown }
  if (Array.isArray(errors) && errors.some((inner) => someWrapped(inner, test, depth + 1))) return true
  return someWrapped(cause, test, depth + 1)
}

/** A network failure, or an error that wraps one (fetch's TypeError wraps the socket's error). */
export const isNetworkFailure = (error: unknown) => someWrapped(error, hasNetworkCode)
