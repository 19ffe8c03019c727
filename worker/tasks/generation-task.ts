import type { Task } from 'graphile-worker'
import type { TaskKind } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'
import { getWorkerEnv, type WorkerEnv } from '#worker/env.ts'
import { sharedRateLimit, type BeforeRequest } from '#worker/providers/shared-rate-limit.ts'
import { runGeneration, type GenerationJob } from './run-generation.ts'

interface GenerationWiring<Provider extends { name: string }> {
  kind: TaskKind
  providerFromEnv: (env: WorkerEnv) => Provider
  /** The provider's requests-per-minute limit, shared by every worker (none when undefined). */
  rpm: (env: WorkerEnv) => number | undefined
  /** How a task of this kind asks the provider; `beforeRequest` runs right before each paid call. */
  job: (provider: Provider, beforeRequest: BeforeRequest) => GenerationJob
}

/**
 * The graphile-worker task of one kind of generation. Its provider and rate limit are built from
 * the worker's env on the first job, not at import, so tests and scripts can import the tasks.
 */
export function generationTask<Provider extends { name: string }>(wiring: GenerationWiring<Provider>): Task {
  let job: GenerationJob | undefined
  return (payload, helpers) => {
    job ??= build()
    return runGeneration(payload, helpers, job)
  }

  function build() {
    const env = getWorkerEnv()
    const provider = wiring.providerFromEnv(env)
    const limit = sharedRateLimit(getDb(), `${wiring.kind}:${provider.name}`, provider.name, wiring.rpm(env))
    return wiring.job(provider, limit)
  }
}
