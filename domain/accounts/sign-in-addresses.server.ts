import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { clientLimitKey } from '#domain/limits/client-key.ts'
import { noteSeenAddress } from './seen-addresses.server.ts'

/**
 * The clients (by limit key: an IPv4 address or an IPv6 /64) each user has proved themselves from:
 * a right password, a registration, a password reset. A right password from one of them is never
 * held back by the per-account login delay (login-delay.server.ts), so guesses from elsewhere cannot
 * lock the owner out. Kept 180 days after the client was last seen.
 */

const KEEP = sql`interval '180 days'`

/** A trusted client is a seen one too (seen-addresses.server.ts). */
export async function rememberSignInAddress(db: DB, userId: string, ip: string) {
  await noteSeenAddress(db, userId, ip)
  await db
    .insertInto('sign_in_addresses')
    .values({ user_id: userId, client_key: clientLimitKey(ip) })
    .onConflict((conflict) => conflict.columns(['user_id', 'client_key']).doUpdateSet({ last_seen_at: sql`now()` }))
    .execute()
}

export async function hasSignedInFrom(db: DB, userId: string, ip: string) {
  const row = await db
    .selectFrom('sign_in_addresses')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('client_key', '=', clientLimitKey(ip))
    .where(sql<boolean>`last_seen_at > now() - ${KEEP}`)
    .executeTakeFirst()
  return row !== undefined
}

/** Daily cleanup: clients not seen for 180 days. */
export async function deleteStaleSignInAddresses(db: DB) {
  const result = await db
    .deleteFrom('sign_in_addresses')
    .where(sql<boolean>`last_seen_at <= now() - ${KEEP}`)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
