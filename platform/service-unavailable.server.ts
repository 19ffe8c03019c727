import { isDatabasePoolExhausted, isDatabaseUnreachable, noteDatabaseUnreachable } from './database-outage.server.ts'
import { getLogger } from './logger.server.ts'
import { StorageUnavailableError } from './storage.server.ts'

/**
 * What every process's HTTP side answers while something it needs is briefly away: the database
 * (database-outage.server.ts), a free connection of its pool, or media storage. The web wraps it
 * in an HttpError (apiHandler), express's error handler and the page wrapper (server/) answer it.
 */
export const RETRY_AFTER_SECONDS = 5

export interface ServiceUnavailable {
  status: 503
  message: string
  headers: Record<string, string>
}

export function serviceUnavailable(
  message = 'The service is briefly unavailable. Please try again in a few seconds.',
): ServiceUnavailable {
  return { status: 503, message, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } }
}

/** The 503 to answer instead of `error`, when the error means something is briefly away; else null. */
export function asServiceUnavailable(error: unknown): ServiceUnavailable | null {
  if (isDatabaseUnreachable(error)) {
    noteDatabaseUnreachable('request', error)
    return serviceUnavailable()
  }
  // Counted and logged by the pool that gave up (database-outage.server.ts: notePoolExhausted).
  if (isDatabasePoolExhausted(error)) return serviceUnavailable()
  if (error instanceof StorageUnavailableError) {
    getLogger().warn({ err: error }, 'media storage unavailable; answered 503')
    return serviceUnavailable('Media storage is briefly unavailable. Please try again in a few seconds.')
  }
  return null
}
