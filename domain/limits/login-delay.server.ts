import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { tooManyRequests, waitText } from '#domain/limits/rate-limit.server.ts'
import { accountKey } from '#domain/limits/account-limits.server.ts'

/**
 * Password guesses against one account from every address together (issue 30): the per-client
 * limits stop one client, but a guesser with many addresses (many IPv6 /64s) would get each
 * client's allowance. The first FREE_FAILURES failures cost nothing; after that each try must wait
 * a delay that doubles with every failure (2 s, 4 s, 8 s … up to 15 minutes), answered 429 with
 * Retry-After. A try is counted as a failure before the password is checked (one atomic upsert,
 * so parallel tries from many addresses cannot all slip through) and a right password clears the
 * count. Failures are forgotten a day after the last one. Keyed by the email as typed, lowercased,
 * whether or not an account has it, so the answers say nothing about which emails are registered.
 *
 * The owner keeps a way in: account.server.ts skips the delay for a client the user has proved
 * themselves from before (sign-in-addresses.server.ts), and a password reset clears the count.
 */

const FREE_FAILURES = 5
const FIRST_DELAY_SECONDS = 2
const MAX_DELAY_SECONDS = 15 * 60
const FORGET_AFTER = sql`interval '24 hours'`

/** The wait after a row's failures, in seconds. */
const delaySql = (column: string) =>
  sql`CASE WHEN ${sql.ref(column)} < ${FREE_FAILURES} THEN 0
    ELSE least(${MAX_DELAY_SECONDS}, ${FIRST_DELAY_SECONDS} * power(2, ${sql.ref(column)} - ${FREE_FAILURES})) END`

/** When the row's next try is allowed. */
const nextTrySql = sql<Date>`f.last_failure_at + make_interval(secs => ${delaySql('f.failures')})`

const refused = (retryAt: Date) =>
  tooManyRequests(
    'login:account-delay',
    retryAt,
    (seconds) =>
      `Too many failed sign-ins to this account, please try again in ${waitText(seconds, { seconds: true })}`,
  )

/**
 * Adds one failure to the account's count (a day after the last one, the count starts again).
 * `onlyWhenAllowed`: unless the account's delay runs, which then leaves the row as it is.
 */
async function addFailure(db: DB, email: string, onlyWhenAllowed: boolean) {
  const { rows } = await sql<{ failures: number }>`
    INSERT INTO login_failures AS f (account, failures, last_failure_at)
    VALUES (${accountKey(email)}, 1, now())
    ON CONFLICT (account) DO UPDATE SET
      failures = CASE WHEN f.last_failure_at < now() - ${FORGET_AFTER} THEN 1 ELSE f.failures + 1 END,
      last_failure_at = now()
    WHERE ${onlyWhenAllowed ? sql`f.failures < ${FREE_FAILURES} OR ${nextTrySql} <= now() OR f.last_failure_at < now() - ${FORGET_AFTER}` : sql`true`}
    RETURNING failures
  `.execute(db)
  if (rows[0]?.failures === FREE_FAILURES) {
    getLogger().warn({ limit: 'login:account-delay', failures: FREE_FAILURES }, 'rate limit reached')
  }
  return rows[0] !== undefined
}

/**
 * Takes one try at the account's password, counted as a failure until clearLoginFailures, or
 * answers 429 while the account's delay runs.
 */
export async function claimLoginAttempt(db: DB, email: string) {
  if (await addFailure(db, email, true)) return
  const row = await db
    .selectFrom('login_failures as f')
    .select(nextTrySql.as('next_try_at'))
    .where('account', '=', accountKey(email))
    .executeTakeFirst()
  throw refused(row?.next_try_at ?? new Date())
}

/** A failure from a client the delay does not hold back (the owner's own): counted all the same. */
export async function countLoginFailure(db: DB, email: string) {
  await addFailure(db, email, false)
}

/** A right password, or a password reset: the account's count starts again. */
export async function clearLoginFailures(db: DB, email: string) {
  await db.deleteFrom('login_failures').where('account', '=', accountKey(email)).execute()
}

/** Accounts whose delay runs now, for the status page. */
export async function delayedAccountCount(db: DB) {
  const row = await db
    .selectFrom('login_failures as f')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where(sql<boolean>`${nextTrySql} > now()`)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Daily cleanup: counts whose last failure is over a day old are forgotten anyway. */
export async function deleteForgottenLoginFailures(db: DB) {
  const result = await db
    .deleteFrom('login_failures')
    .where(sql<boolean>`last_failure_at < now() - ${FORGET_AFTER}`)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
