import type { Task } from 'graphile-worker'
import { deleteExpiredRateLimits } from '#domain/limits/rate-limit.server.ts'
import { deleteForgottenLoginFailures } from '#domain/limits/login-delay.server.ts'
import { deleteStaleSeenAddresses } from '#domain/accounts/seen-addresses.server.ts'
import { deleteStaleSignInAddresses } from '#domain/accounts/sign-in-addresses.server.ts'
import { deleteStaleVerificationCodes } from '#domain/accounts/verification-code.server.ts'
import { getDb } from '#platform/db.server.ts'

/**
 * Daily: drops rate-limit counters whose window has ended, login failure counts over a day old,
 * sign-in clients not seen for 180 days, clients users were seen at over 30 days ago (referral
 * checks) and verification codes expired over a day ago.
 */
export const cleanupAuthRecords: Task = async (_payload, helpers) => {
  const counters = await deleteExpiredRateLimits(getDb())
  const failures = await deleteForgottenLoginFailures(getDb())
  const clients = await deleteStaleSignInAddresses(getDb())
  const seen = await deleteStaleSeenAddresses(getDb())
  const codes = await deleteStaleVerificationCodes(getDb())
  helpers.logger.info(
    `removed ${counters} rate-limit counter(s), ${failures} login failure count(s), ` +
      `${clients} sign-in client(s), ${seen} seen client(s) and ${codes} verification code(s)`,
  )
}
