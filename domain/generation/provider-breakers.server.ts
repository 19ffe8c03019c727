/**
 * One circuit breaker per image provider, shared by every worker process through PostgreSQL
 * (docs/decisions/0033). Each change is one transaction holding the provider's row lock
 * (SELECT … FOR UPDATE), so two workers never both take the half-open breaker's one probe.
 *
 * - closed: calls pass. Retryable failures (5xx, timeouts, stalls, network) of `failures` different
 *   users within `windowMs` open it (provider_breaker_failures keeps each user's last one): the
 *   retries of one task, and all the tasks of one user, count once, so one user whose input makes
 *   the provider fail (refunded, so free) cannot switch it off for everyone. A quota, billing or key
 *   failure (this server's account, not a user's input) opens it at once.
 * - open: calls skip the provider until `cooldownMs` after it opened; then one caller takes the probe
 *   (half_open), never the task that opened it (its own input may be what fails). A probe that never
 *   reports back (its worker died) is given up after `probeTimeoutMs`.
 * - half_open: the probe's success closes it (and forgets the failures); its failure opens it again
 *   for another cool-down, that task now its opener.
 *
 * Opening for quota or key reasons queues an email to OWNER_EMAIL, at most once an hour per provider,
 * in the same transaction (the email job path: send_email).
 */
import { sql } from 'kysely'
import type { DB, Tx } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { enqueueJob } from '#platform/jobs.server.ts'

export interface BreakerSettings {
  /** Retryable failures within `windowMs` that open the breaker. */
  failures: number
  windowMs: number
  /** How long an open breaker stays open before one probe is let through. */
  cooldownMs: number
  /** A probe that has not reported back after this long is given up (its worker is gone). */
  probeTimeoutMs: number
}

/** Failure codes that open the breaker at once: someone must pay, or fix the key. */
const OPERATOR_REASONS = new Set(['quota', 'auth'])
const OWNER_EMAIL_EVERY_MS = 60 * 60_000

/** What a caller may do now: call (`closed`), call as the one probe (`probe`), or skip until `retryInMs`. */
export type Admission = { state: 'closed' } | { state: 'probe' } | { state: 'open'; retryInMs: number }

/** Who calls: the task (its user counts toward the breaker, decision 0033). */
export interface Caller {
  taskId: string
  userId: string
}

export async function admitCall(
  db: DB,
  provider: string,
  settings: BreakerSettings,
  caller?: Pick<Caller, 'taskId'>,
): Promise<Admission> {
  return db.transaction().execute(async (tx) => {
    const row = await lockedRow(tx, provider)
    const now = Date.now()
    if (row.state === 'closed') return { state: 'closed' }
    const probeFree =
      row.state === 'open' || !row.probe_started_at || now - row.probe_started_at.getTime() > settings.probeTimeoutMs
    const reopensAt = (row.opened_at?.getTime() ?? now) + settings.cooldownMs
    const opener = caller !== undefined && caller.taskId === row.opened_by_task_id
    if (probeFree && now >= reopensAt && opener)
      return { state: 'open', retryInMs: Math.max(1_000, settings.cooldownMs) }
    if (probeFree && now >= reopensAt) {
      await tx
        .updateTable('provider_breakers')
        .set({ state: 'half_open', probe_started_at: sql`now()`, updated_at: sql`now()` })
        .where('provider', '=', provider)
        .execute()
      return { state: 'probe' }
    }
    return { state: 'open', retryInMs: Math.max(1_000, reopensAt - now) }
  })
}

/**
 * A call that got an answer from the provider (even a refusal): the provider works, so an open or
 * half-open breaker closes. A closed one keeps counting its window's failures: K failures within
 * the window open it even with answers between them (a provider failing every other call).
 */
export async function recordSuccess(db: DB, provider: string) {
  await db.transaction().execute(async (tx) => {
    const closed = await tx
      .updateTable('provider_breakers')
      .set({
        state: 'closed',
        failures: 0,
        window_started_at: null,
        probe_started_at: null,
        opened_by_task_id: null,
        updated_at: sql`now()`,
      })
      .where('provider', '=', provider)
      .where('state', '<>', 'closed')
      .executeTakeFirst()
    if (closed.numUpdatedRows > 0n) {
      await tx.deleteFrom('provider_breaker_failures').where('provider', '=', provider).execute()
    }
  })
}

/** A probe that could not be sent (no room at the provider): the next caller may probe. */
export async function releaseProbe(db: DB, provider: string) {
  await db
    .updateTable('provider_breakers')
    .set({ probe_started_at: null })
    .where('provider', '=', provider)
    .where('state', '=', 'half_open')
    .execute()
}

/**
 * Records `caller`'s failure of `reason` (a ProviderFailure code); answers whether this opened the
 * breaker. `failures` becomes the number of users with a failure within the window.
 */
export async function recordFailure(
  db: DB,
  provider: string,
  failure: { reason: string; message: string },
  settings: BreakerSettings,
  caller: Caller,
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const row = await lockedRow(tx, provider)
    const windowStart = new Date(Date.now() - settings.windowMs)
    await tx
      .deleteFrom('provider_breaker_failures')
      .where('provider', '=', provider)
      .where('failed_at', '<', windowStart)
      .execute()
    await tx
      .insertInto('provider_breaker_failures')
      .values({ provider, user_id: caller.userId, task_id: caller.taskId })
      .onConflict((oc) =>
        oc.columns(['provider', 'user_id']).doUpdateSet({ task_id: caller.taskId, failed_at: sql`now()` }),
      )
      .execute()
    const counted = await tx
      .selectFrom('provider_breaker_failures')
      .select((eb) => [eb.fn.countAll<string>().as('users'), eb.fn.min('failed_at').as('since')])
      .where('provider', '=', provider)
      .executeTakeFirstOrThrow()
    const failures = Number(counted.users)
    const opens =
      row.state === 'half_open' ||
      (row.state === 'closed' && (OPERATOR_REASONS.has(failure.reason) || failures >= settings.failures))
    await tx
      .updateTable('provider_breakers')
      .set({
        failures,
        window_started_at: counted.since,
        last_error: failure.message,
        last_error_at: sql`now()`,
        updated_at: sql`now()`,
        ...(opens
          ? {
              state: 'open',
              opened_at: sql`now()`,
              open_reason: failure.reason,
              probe_started_at: null,
              opened_by_task_id: caller.taskId,
            }
          : {}),
      })
      .where('provider', '=', provider)
      .execute()
    if (opens && OPERATOR_REASONS.has(failure.reason)) await tellOwner(tx, provider, failure.message, row.owner_told_at)
    return opens
  })
}

async function tellOwner(tx: Tx, provider: string, message: string, toldAt: Date | null) {
  const owner = getEnv().OWNER_EMAIL
  if (!owner || (toldAt && Date.now() - toldAt.getTime() < OWNER_EMAIL_EVERY_MS)) return
  await tx
    .updateTable('provider_breakers')
    .set({ owner_told_at: sql`now()` })
    .where('provider', '=', provider)
    .execute()
  await enqueueJob(tx, 'send_email', {
    to: owner,
    subject: `Pawtrait: image provider ${provider} is switched off (quota, billing or key)`,
    text: [
      `The image provider "${provider}" refused this server's account:`,
      '',
      message,
      '',
      'Its circuit breaker is open: new images go to the next provider in IMAGE_PROVIDERS, and one',
      'probe is sent after each cool-down. Check the key, the quota or the billing of this account.',
      'You get at most one such email an hour per provider; /system-status shows the breakers.',
    ].join('\n'),
  })
}

async function lockedRow(tx: Tx, provider: string) {
  await tx
    .insertInto('provider_breakers')
    .values({ provider })
    .onConflict((oc) => oc.doNothing())
    .execute()
  return tx
    .selectFrom('provider_breakers')
    .selectAll()
    .where('provider', '=', provider)
    .forUpdate()
    .executeTakeFirstOrThrow()
}

/** Every breaker, for /system-status. */
export async function listBreakers(db: DB) {
  return db
    .selectFrom('provider_breakers')
    .select(['provider', 'state', 'failures', 'opened_at', 'open_reason', 'last_error', 'last_error_at'])
    .orderBy('provider')
    .execute()
}

/** A task moved from one provider to the next: kept for /analytics and the bench. */
export async function recordFailover(
  db: DB,
  move: { taskId: string; from: string; to: string; reason: string; failedAt: Date },
) {
  await db
    .insertInto('provider_failovers')
    .values({
      task_id: move.taskId,
      from_provider: move.from,
      to_provider: move.to,
      reason: move.reason,
      failed_at: move.failedAt,
    })
    .execute()
}
