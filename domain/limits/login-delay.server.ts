import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { tooManyRequests, waitText } from '#domain/limits/rate-limit.server.ts'

/**
 * Password guesses against one account from every address together (issue 30): the per-client
 * limits stop one client, but a guesser with many addresses (many IPv6 /64s) would get each
 * client's allowance. The first FREE_FAILURES failures cost nothing; after that each try must wait
 * a delay that doubles with every failure (1 s, 2 s, 4 s … up to 15 minutes), answered 429 with
 * Retry-After. A try is counted as a failure before the password is checked (one atomic upsert,
 * so parallel tries from many addresses cannot all slip through) and a right password clears the
 * count. Failures are forgotten a day after the last one. Keyed by the email as typed, lowercased,
 * whether or not an account has it, so the answers say nothing about which emails are registered.
 *
 * The owner keeps a way in: account.server.ts skips the delay for a client the user has proved
 * themselves from before (sign-in-addresses.server.ts), and a password reset clears the count.
 */

const FREE_FAILURES = 5
const FIRST_DELAY_SECONDS = 1
const MAX_DELAY_SECONDS = 15 * 60
const FORGET_AFTER = sql`interval '24 hours'`

const account = (email: string) => email.trim().toLowerCase()

/** The wait after `failures`, in seconds, in SQL (the same rule as delayAfter). */
const delaySql = (column: string) =>
  sql`CASE WHEN ${sql.ref(column)} < ${FREE_FAILURES} THEN 0
    ELSE least(${MAX_DELAY_SECONDS}, ${FIRST_DELAY_SECONDS} * power(2, ${sql.ref(column)} - ${FREE_FAILURES})) END`

function delayAfter(failures: number) {
  if (failures < FREE_FAILURES) return 0
  return Math.min(MAX_DELAY_SECONDS, FIRST_DELAY_SECONDS * 2 ** (failures - FREE_FAILURES))
}

const refused = (retryAt: Date) =>
  tooManyRequests('login:account-delay', retryAt, (seconds) =>
    [
      `Too many failed sign-ins to this account, please try again in ${waitText(seconds, { seconds: true })}.`,
      'If you forgot your password, reset it.',
    ].join(' '),
  )

/**
 * Takes one try at the account's password, counted as a failure until clearLoginFailures, or
 * answers 429 while the account's delay runs.
 */
export async function claimLoginAttempt(db: DB, email: string) {
  const key = account(email)
  const { rows } = await sql<{ failures: number }>`
    INSERT INTO login_failures AS f (account, failures, last_failure_at)
    VALUES (${key}, 1, now())
    ON CONFLICT (account) DO UPDATE SET
      failures = CASE WHEN f.last_failure_at < now() - ${FORGET_AFTER} THEN 1 ELSE f.failures + 1 END,
      last_failure_at = now()
    WHERE f.last_failure_at < now() - ${FORGET_AFTER}
      OR f.last_failure_at + make_interval(secs => ${delaySql('f.failures')}) <= now()
    RETURNING failures
  `.execute(db)
  if (rows[0]) {
    if (rows[0].failures === FREE_FAILURES) {
      getLogger().warn({ limit: 'login:account-delay', failures: FREE_FAILURES }, 'rate limit reached')
    }
    return
  }
  const row = await db
    .selectFrom('login_failures')
    .select(['failures', 'last_failure_at'])
    .where('account', '=', key)
    .executeTakeFirst()
  const since = row ? row.last_failure_at.getTime() : Date.now()
  throw refused(new Date(since + delayAfter(row?.failures ?? FREE_FAILURES) * 1000))
}

/** A failure from a client the delay does not hold back (the owner's own): counted all the same. */
export async function countLoginFailure(db: DB, email: string) {
  await sql`
    INSERT INTO login_failures AS f (account, failures, last_failure_at)
    VALUES (${account(email)}, 1, now())
    ON CONFLICT (account) DO UPDATE SET
      failures = CASE WHEN f.last_failure_at < now() - ${FORGET_AFTER} THEN 1 ELSE f.failures + 1 END,
      last_failure_at = now()
  `.execute(db)
}

/** A right password, or a password reset: the account's count starts again. */
export async function clearLoginFailures(db: DB, email: string) {
  await db.deleteFrom('login_failures').where('account', '=', account(email)).execute()
}

/** Accounts whose delay runs now, for the status page. */
export async function delayedAccountCount(db: DB) {
  const row = await db
    .selectFrom('login_failures as f')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where(sql<boolean>`f.last_failure_at + make_interval(secs => ${delaySql('f.failures')}) > now()`)
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
