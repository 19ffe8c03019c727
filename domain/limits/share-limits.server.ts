import { rateLimit, type RateLimit } from '#domain/limits/rate-limit.server.ts'

/**
 * Share pages one user may make an hour (issue 38): each decodes the whole version, up to 8192 px,
 * so a flood is refused with 429 before any decoding. A share answered by the version's existing
 * page costs nothing and is not counted.
 */
const SHARE_PAGES_PER_HOUR = 20

export const sharePageLimit = (userId: string): RateLimit =>
  rateLimit('share:user', userId, SHARE_PAGES_PER_HOUR, 60 * 60)
