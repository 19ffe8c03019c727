import { clientLimitKey } from '#domain/limits/client-key.ts'
import { rateLimit, type RateLimit } from '#domain/limits/rate-limit.server.ts'

/**
 * POST /api/photo-check asks a paid vision model about every new photo (a repeat is answered from
 * the cache), before anyone has paid: per account and per client (an IPv4 address or an IPv6 /64)
 * it is limited to what choosing photos by hand needs. docs/limits.md.
 */
export const PHOTO_CHECKS_PER_USER_PER_HOUR = 30
export const PHOTO_CHECKS_PER_CLIENT_PER_HOUR = 60

export const photoCheckLimits = (userId: string, ip: string): RateLimit[] => [
  rateLimit('photo-check:user', userId, PHOTO_CHECKS_PER_USER_PER_HOUR, 60 * 60),
  rateLimit('photo-check:ip', clientLimitKey(ip), PHOTO_CHECKS_PER_CLIENT_PER_HOUR, 60 * 60),
]
