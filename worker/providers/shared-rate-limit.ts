/**
 * A requests-per-minute limit per provider, shared through PostgreSQL by every worker process on
 * every machine (IMAGE_PROVIDER_RPM, VIDEO_PROVIDER_RPM). Each request to the provider is a row in
 * provider_requests; a transaction-scoped advisory lock per provider makes "count the window, then
 * add a row" one step across the cluster. The window is a second longer than a minute, so that the
 * short gap between reserving and the request reaching the provider can never put more than the
 * limit into any 60 s window the provider measures.
 *
 * A run of several versions made by as many requests (Gemini) reserves them together and is
 * granted as many as the window has room for (the rest are asked for on a later run).
 *
 * No room for a while: a ProviderError with `retryAfterMs`, which the job turns into a later run
 * that uses up no attempt (and frees its slot). That run is asked for a little before the oldest
 * request leaves the window, and the last moments are waited in the slot: a later run is started by
 * graphile-worker's poll (up to a second late) after a jitter of up to a second, and waking at the
 * very moment there is room wastes none of the limit (decision 0013, issue 42).
 */
import { setTimeout } from 'node:timers/promises'
import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { ProviderError } from './types.ts'

const WINDOW_MS = 61_000
/** A wait this short is slept in the job's slot rather than handed to a later run. */
const WAIT_IN_SLOT_MS = 3_000
/** A later run comes back this much before there is room: the jitter and the poll's delay fit in it. */
const COME_BACK_EARLY_MS = 2_500
/** The shortest sleep between two looks at a full window (requests leave it a few ms apart). */
const LEAST_SLEEP_MS = 5

/** Called right before paid requests: reserves up to `wanted` (default 1), answers how many it may make. */
export type BeforeRequest = (wanted?: number) => Promise<number>

/** For a provider without a limit. */
export const noLimit: BeforeRequest = async (wanted = 1) => wanted

/** A function to call right before each paid request (or set of them). */
export function sharedRateLimit(db: DB, provider: string, service: string, rpm: number | undefined): BeforeRequest {
  if (rpm === undefined) return noLimit
  return async (wanted = 1) => {
    for (;;) {
      const { granted, waitMs } = await reserveRequest(db, provider, rpm, wanted)
      if (granted > 0) return granted
      if (waitMs > WAIT_IN_SLOT_MS) {
        throw new ProviderError(`Waiting for room at ${service} (limit ${rpm} requests per minute).`, {
          retryable: true,
          retryAfterMs: waitMs - COME_BACK_EARLY_MS,
        })
      }
      await setTimeout(Math.max(LEAST_SLEEP_MS, waitMs))
    }
  }
}

/**
 * Reserves up to `wanted` requests, as many as the window has room for (`granted`), or none and
 * answers how long until there will be room (`waitMs`).
 */
export async function reserveRequest(
  db: DB,
  provider: string,
  rpm: number,
  wanted = 1,
): Promise<{ granted: number; waitMs: number }> {
  return db.transaction().execute(async (tx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext('provider_requests'), hashtext(${provider}))`.execute(tx)
    await sql`
      DELETE FROM provider_requests
      WHERE provider = ${provider} AND sent_at <= clock_timestamp() - make_interval(secs => ${WINDOW_MS / 1000})
    `.execute(tx)
    const { rows } = await sql<{ used: number; wait_ms: number | null }>`
      SELECT count(*)::int AS used,
             ceil(extract(epoch FROM min(sent_at) + make_interval(secs => ${WINDOW_MS / 1000}) - clock_timestamp()) * 1000)::int AS wait_ms
      FROM provider_requests WHERE provider = ${provider}
    `.execute(tx)
    const { used, wait_ms } = rows[0]
    const granted = Math.max(0, Math.min(wanted, rpm - used))
    if (granted > 0) {
      await tx
        .insertInto('provider_requests')
        .values(Array.from({ length: granted }, () => ({ provider })))
        .execute()
      return { granted, waitMs: 0 }
    }
    return { granted: 0, waitMs: Math.max(1, wait_ms ?? 1) }
  })
}
