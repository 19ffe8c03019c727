/**
 * Ordered image providers with failover (IMAGE_PROVIDERS, docs/decisions/0033): a version goes to
 * the first provider whose breaker lets it through and whose rate limit has room; when that
 * provider fails retryably, stalls, or refuses this server's quota or key, the same version moves
 * on to the next one within the same job (the user paid once, at submission). A refusal (safety or
 * moderation) and bad input end the chain: another provider must not be used to get around a
 * refusal. An answer that has started is never abandoned (the stall is timed to the first byte of
 * the answer, http.ts).
 *
 * When no provider could take the version, the chain throws what the job knows how to wait on:
 * the shortest wait (an open breaker's cool-down, a 429, no room under a rate limit), else the last
 * provider's own failure, so a task waits and then fails and is refunded as it always has.
 */
import type { DB } from '#platform/db.server.ts'
import { getMetrics, providerLabel } from '#platform/metrics.server.ts'
import {
  admitCall,
  recordFailover,
  recordFailure,
  recordSuccess,
  releaseProbe,
  type BreakerSettings,
  type Caller,
} from '#domain/generation/provider-breakers.server.ts'
import type { BeforeRequest } from './shared-rate-limit.ts'
import {
  ProviderError,
  type GeneratedImages,
  type ImageProvider,
  type ImageRequest,
  type ProviderContext,
} from './types.ts'

export interface ChainLink {
  provider: ImageProvider
  /** Its own shared rate limit, run right before its paid call(s); may grant fewer than asked. */
  beforeRequest: BeforeRequest
}

export interface ProviderChain {
  links: ChainLink[]
  /** Null: no breakers (one bare provider, as the unit tests use it). */
  breakers: BreakerSettings | null
}

/** Failures that move a version on to the next provider; `busy` moves on too, but is no breaker failure. */
const FAILS_OVER = new Set(['quota', 'auth', 'stall', 'retryable', 'busy'])

interface PassedOver {
  from: string
  reason: string
  at: Date
}

export async function generateWithFailover(
  db: DB,
  chain: ProviderChain,
  request: Omit<ImageRequest, 'versions'>,
  versions: number[],
  context: ProviderContext,
  /** The task asking and its user: a breaker counts users, and never lets a task probe the breaker it opened. */
  caller: Caller,
): Promise<GeneratedImages> {
  const { taskId } = caller
  let passedOver: PassedOver | undefined
  let waitError: ProviderError | undefined
  let lastError: ProviderError | undefined
  const wait = (error: ProviderError) => {
    if (!waitError || (error.retryAfterMs ?? 0) < (waitError.retryAfterMs ?? 0)) waitError = error
  }

  for (const { provider, beforeRequest } of chain.links) {
    const name = provider.name
    const admission = chain.breakers ? await admitCall(db, name, chain.breakers, caller) : { state: 'closed' as const }
    if (admission.state === 'open') {
      wait(
        new ProviderError(`${name} is switched off for now.`, { retryable: true, retryAfterMs: admission.retryInMs }),
      )
      passedOver = { from: name, reason: 'breaker_open', at: new Date() }
      continue
    }
    const probing = admission.state === 'probe'
    let asked = versions
    try {
      // One request for every version (OpenAI's `n`), or one per version (Gemini): as many as granted.
      const granted = await beforeRequest(provider.requestPerVersion ? versions.length : 1)
      if (provider.requestPerVersion) asked = versions.slice(0, granted)
    } catch (error) {
      if (probing) await releaseProbe(db, name)
      if (!(error instanceof ProviderError) || error.reason !== 'busy') throw error
      wait(error)
      passedOver = { from: name, reason: 'busy', at: new Date() }
      continue
    }
    if (passedOver) await noteFailover(db, taskId, passedOver, name)
    try {
      const made = await provider.generate({ ...request, versions: asked }, context)
      if (chain.breakers) await noteAnswered(db, name)
      return { ...made, madeBy: { provider: name, model: provider.model ?? null, hdLongEdge: provider.hdLongEdge } }
    } catch (error) {
      if (!(error instanceof ProviderError) || context.signal.aborted) {
        // Stopped (the worker shuts down) or our own fault: no verdict on the provider; the next caller probes.
        if (probing) await releaseProbe(db, name)
        throw error
      }
      const reason = error.reason
      if (!FAILS_OVER.has(reason)) {
        // It answered (a refusal, bad input): the provider works; the version ends here.
        if (chain.breakers) await noteAnswered(db, name)
        throw error
      }
      if (reason === 'busy') {
        if (probing) await releaseProbe(db, name)
        wait(error)
      } else {
        if (chain.breakers) await recordFailure(db, name, { reason, message: error.message }, chain.breakers, caller)
        lastError = error
      }
      passedOver = { from: name, reason, at: new Date() }
    }
  }
  // Nothing made it: wait when some provider may take it soon, else the last failure decides.
  throw waitError ?? lastError ?? new ProviderError('No image provider is configured.', { retryable: false })
}

/**
 * A provider answered: its breaker closes. The answer is not stored yet, so this bookkeeping must
 * never cost it (decision 0028): a failed write (a full pool, a database that went away) only
 * leaves the breaker as it was, and the next answer closes it.
 */
async function noteAnswered(db: DB, name: string) {
  await recordSuccess(db, name).catch((error: unknown) =>
    console.warn(`[worker] recording that ${name} answered failed; its breaker stays as it was: ${error}`),
  )
}

async function noteFailover(db: DB, taskId: string, passed: PassedOver, to: string) {
  getMetrics().providerFailovers.inc({ from: providerLabel(passed.from), to: providerLabel(to), reason: passed.reason })
  await recordFailover(db, { taskId, from: passed.from, to, reason: passed.reason, failedAt: passed.at })
}
