import type { Task } from 'graphile-worker'
import { deleteExpiredRateLimits } from '#domain/limits/rate-limit.server.ts'
import { deleteStaleVerificationCodes } from '#domain/accounts/verification-code.server.ts'
import { getDb } from '#platform/db.server.ts'

/** Daily: drops rate-limit counters whose window has ended and verification codes expired over a day ago. */
export const cleanupAuthRecords: Task = async (_payload, helpers) => {
  const counters = await deleteExpiredRateLimits(getDb())
  const codes = await deleteStaleVerificationCodes(getDb())
  helpers.logger.info(`removed ${counters} rate-limit counter(s) and ${codes} verification code(s)`)
}
