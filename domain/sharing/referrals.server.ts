import { sql } from 'kysely'
import type { DB, Tx } from '#platform/db.server.ts'
import { wasSeenNear } from '#domain/accounts/seen-addresses.server.ts'
import { mailboxKey } from '#domain/limits/mailbox-key.ts'
import { grantCredits } from '#domain/credits/credits.server.ts'
import { getSystemConfig } from '#domain/credits/system-config.server.ts'

/**
 * Referrals (issue 32, item 5; decision 0037). A visitor who registers after opening a share page
 * is remembered as the sharer's referral, unless the sharer could be the visitor: the same mailbox
 * (mailboxKey), or a network the sharer was seen at within REFERRAL_LOOKBACK_DAYS (any signed-in
 * request or sign-in: the same IPv4 address, IPv6 /64 or IPv6 /48; seen-addresses.server.ts). The
 * sharer is paid when the visitor's first purchase is credited, in that same transaction:
 * referral_payouts' primary key (the visitor) lets one approval claim it, however many race. The
 * month's rewards are counted in referral_rewards_monthly, which stays when visitors delete their
 * accounts (their referral_payouts rows go with them), under the sharer's row lock.
 */

/** The cookie a share page sets, naming its slug, read at registration. */
export const REFERRAL_COOKIE = 'pawtrait_ref'

/** Remembers the sharer of `slug` as the new user's referrer, unless it may be the same person. */
export async function recordReferral(db: DB, newUser: { id: string; email: string }, slug: string, ip: string) {
  const sharer = await db
    .selectFrom('share_pages')
    .innerJoin('users', 'users.id', 'share_pages.user_id')
    .select(['users.id', 'users.email'])
    .where('share_pages.slug', '=', slug)
    .executeTakeFirst()
  if (!sharer || sharer.id === newUser.id) return false
  if (mailboxKey(sharer.email) === mailboxKey(newUser.email)) return false
  if (await wasSeenNear(db, sharer.id, ip)) return false
  await db.updateTable('users').set({ referrer_id: sharer.id }).where('id', '=', newUser.id).execute()
  return true
}

/**
 * Called in the transaction that credits a purchase of `buyerId`: on the buyer's first credited
 * purchase, pays their referrer `referralCredits` (at most `referralMaxPerMonth` a calendar month),
 * with a line in both users' credit history. Any later purchase finds the claim taken and pays nothing.
 */
export async function payReferralOnPurchase(tx: Tx, buyerId: string) {
  const buyer = await tx.selectFrom('users').select('referrer_id').where('id', '=', buyerId).executeTakeFirst()
  if (!buyer?.referrer_id) return
  const referrerId = buyer.referrer_id
  const claim = await tx
    .insertInto('referral_payouts')
    .values({ referred_user_id: buyerId, referrer_id: referrerId, amount: 0 })
    .onConflict((conflict) => conflict.column('referred_user_id').doNothing())
    .returning('referred_user_id')
    .executeTakeFirst()
  if (!claim) return
  const { referralCredits, referralMaxPerMonth } = await getSystemConfig(tx)
  // Locked, so two visitors' purchases cannot both take the month's last reward.
  await tx.selectFrom('users').select('id').where('id', '=', referrerId).forUpdate().executeTakeFirst()
  const month = sql<string>`date_trunc('month', now())::date`
  const counted = await tx
    .selectFrom('referral_rewards_monthly')
    .select('rewards')
    .where('referrer_id', '=', referrerId)
    .where(sql<boolean>`month = ${month}`)
    .executeTakeFirst()
  const capped = (counted?.rewards ?? 0) >= referralMaxPerMonth
  const amount = capped ? 0 : referralCredits
  if (amount > 0) {
    await tx.updateTable('referral_payouts').set({ amount }).where('referred_user_id', '=', buyerId).execute()
    await tx
      .insertInto('referral_rewards_monthly')
      .values({ referrer_id: referrerId, month, rewards: 1 })
      .onConflict((conflict) =>
        conflict.columns(['referrer_id', 'month']).doUpdateSet({ rewards: sql`referral_rewards_monthly.rewards + 1` }),
      )
      .execute()
    await grantCredits(tx, {
      userId: referrerId,
      type: 'earn',
      amount,
      description: `Referral reward: someone you shared a portrait with made their first purchase (+${amount} credits)`,
    })
  }
  await grantCredits(tx, {
    userId: buyerId,
    type: 'earn',
    amount: 0,
    description: capped
      ? 'Referral: you joined through a shared portrait; its sharer reached this month’s referral limit'
      : `Referral: you joined through a shared portrait, so your first purchase earned its sharer ${amount} credits`,
  })
}
