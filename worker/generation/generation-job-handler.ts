import type { Task } from 'graphile-worker'
import type { TaskKind } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'
import { getWorkerEnv, type WorkerEnv } from '#worker/env.ts'
import { sharedRateLimit, type BeforeRequest } from '#worker/providers/shared-rate-limit.ts'
import { runGeneration, type GenerationProducer } from './run-generation.ts'

/** A provider's requests-per-minute limit, shared by every worker (none when `rpm` is undefined). */
export type LimitFor = (provider: { name: string }, rpm: number | undefined) => BeforeRequest

interface GenerationWiring {
  kind: TaskKind
  /** How a task of this kind asks its provider(s), each with its limit, run right before each paid call. */
  producerFromEnv: (env: WorkerEnv, limitFor: LimitFor) => GenerationProducer
}

/**
 * The graphile-worker job handler of one kind of generation. Its providers and rate limits are
 * built from the worker's env on the first job, not at import, so tests and scripts can import the
 * handlers.
 */
export function generationJobHandler(wiring: GenerationWiring): Task {
  let producer: GenerationProducer | undefined
  return (payload, helpers) => {
    producer ??= build()
    return runGeneration(payload, helpers, producer)
  }

  function build() {
    return wiring.producerFromEnv(getWorkerEnv(), (provider, rpm) =>
      sharedRateLimit(getDb(), `${wiring.kind}:${provider.name}`, provider.name, rpm),
    )
  }
}
