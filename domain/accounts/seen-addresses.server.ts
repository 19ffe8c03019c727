import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { clientLimitKey, siteLimitKey } from '#domain/limits/client-key.ts'

/**
 * Every client a user was seen at (its limit key: an IPv4 address or an IPv6 /64, with the /48 it
 * is in), for the referral self-check (domain/sharing/referrals.server.ts): a visitor registering
 * from a network the sharer used within REFERRAL_LOOKBACK_DAYS is no referral. Unlike
 * sign_in_addresses this trusts nothing: it only remembers. Written for every signed-in request
 * (at most once per WRITE_EVERY_MS per user and client in each process) and every sign-in;
 * forgotten after KEEP_DAYS.
 */

const REFERRAL_LOOKBACK_DAYS = 30
const KEEP_DAYS = REFERRAL_LOOKBACK_DAYS
const WRITE_EVERY_MS = 10 * 60_000
/** Past this many remembered writes the memory starts afresh (a few more writes, no growth). */
const MEMORY_LIMIT = 10_000
const lastWritten = new Map<string, number>()

export async function noteSeenAddress(db: DB, userId: string, ip: string) {
  if (!ip || ip === 'unknown') return
  const clientKey = clientLimitKey(ip)
  const memo = `${userId} ${clientKey}`
  const now = Date.now()
  if (now - (lastWritten.get(memo) ?? 0) < WRITE_EVERY_MS) return
  if (lastWritten.size >= MEMORY_LIMIT) lastWritten.clear()
  lastWritten.set(memo, now)
  await db
    .insertInto('seen_addresses')
    .values({ user_id: userId, client_key: clientKey, site_key: siteLimitKey(ip) })
    .onConflict((conflict) => conflict.columns(['user_id', 'client_key']).doUpdateSet({ last_seen_at: sql`now()` }))
    .execute()
}

/** Whether `userId` was seen within REFERRAL_LOOKBACK_DAYS at `ip`'s client or, for IPv6, its /48. */
export async function wasSeenNear(db: DB, userId: string, ip: string) {
  const site = siteLimitKey(ip)
  const row = await db
    .selectFrom('seen_addresses')
    .select('user_id')
    .where('user_id', '=', userId)
    .where((eb) =>
      site
        ? eb.or([eb('client_key', '=', clientLimitKey(ip)), eb('site_key', '=', site)])
        : eb('client_key', '=', clientLimitKey(ip)),
    )
    .where(sql<boolean>`last_seen_at > now() - make_interval(days => ${REFERRAL_LOOKBACK_DAYS})`)
    .executeTakeFirst()
  return row !== undefined
}

/** Daily cleanup: clients not seen for KEEP_DAYS. */
export async function deleteStaleSeenAddresses(db: DB) {
  const result = await db
    .deleteFrom('seen_addresses')
    .where(sql<boolean>`last_seen_at <= now() - make_interval(days => ${KEEP_DAYS})`)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
