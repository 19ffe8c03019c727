import { sql } from 'kysely'
import type { DB, Tx } from './db.server.ts'
import { currentRequestContext } from './request-context.server.ts'

/** The jobs the worker knows, with their payloads. worker/jobs/index.ts maps each to its handler. */
export interface JobPayloads {
  cleanup_sessions: Record<string, never>
  cleanup_auth_records: Record<string, never>
  send_email: { to: string; subject: string; text: string; html?: string; headers?: Record<string, string> }
  send_password_reset: { email: string }
  generate_image: { taskId: string }
  generate_video: { taskId: string }
  /** "Make it bigger" of a finished version (decision 0036). */
  upscale_image: { taskId: string }
  /** Queued by the generation_tasks trigger when long work ends (migration 0023). */
  send_task_end_email: { taskId: string }
  expire_media: Record<string, never>
  recover_stalled_tasks: Record<string, never>
  rollup_analytics: Record<string, never>
  /** `watchUntil`: rechecks stop after it; `failures`: chain API failures in a row (backoff). */
  verify_payment: { proofId: string; watchUntil: string; failures: number }
  /** A user's "Download my data" zip (domain/user-data/data-exports.server.ts). */
  build_data_export: { exportId: string }
  /** Sends a paid print order to the lab (domain/prints/print-lab-orders.server.ts; decision 0042). */
  submit_print_order: { orderId: string }
  /** Re-reads a print order at the lab (after its callback, or in the sweep). */
  sync_print_order: { orderId: string }
  sweep_print_orders: Record<string, never>
}

export type JobName = keyof JobPayloads

/** The worker's lanes (worker/lanes.ts): one graphile-worker runner each, with its own concurrency. */
export type WorkerLane = 'image' | 'video' | 'upscale' | 'background'

/** What every job of one name is: how often it is tried, where it runs, what may be assumed of it. */
export interface JobKind {
  /** graphile-worker's max_attempts: one try plus retries with its exponential backoff. */
  maxAttempts: number
  lane: WorkerLane
  /** graphile-worker takes lower numbers first; queue-placement.server.ts moves run_at instead. */
  priority: number
  /** Recurring jobs: when, in crontab format (UTC); worker/jobs/index.ts builds the crontab. */
  schedule?: string
  /**
   * Generation jobs (the ones whose job key is their task's id): whether a provider call that
   * timed out may have been done, and billed, anyway. Such a call is retried once only (decision 0013).
   */
  generation?: { timedOutCallMayBeBilled: boolean }
}

/** One try plus three retries with graphile-worker's exponential backoff (about 3 s, 7 s, 20 s). */
const GENERATION_MAX_ATTEMPTS = 4
/** graphile-worker's own default, which its crontab jobs and add_job without max_attempts get. */
export const GRAPHILE_MAX_ATTEMPTS = 25

/**
 * Every job the worker runs, in one table: read by enqueueJob (attempts, priority), the worker's
 * lanes and crontab, task waits and recovery (which jobs are generation jobs), and the failure
 * policy (domain/generation/failure-policy.ts). The live-updates trigger (migration 2026-11-25-0023)
 * queues send_task_end_email in SQL with its own max_attempts => 10; tests/integration/job-kinds.test.ts
 * holds the two equal.
 */
export const jobKinds = {
  generate_image: {
    maxAttempts: GENERATION_MAX_ATTEMPTS,
    lane: 'image',
    priority: 0,
    generation: { timedOutCallMayBeBilled: true },
  },
  generate_video: {
    maxAttempts: GENERATION_MAX_ATTEMPTS,
    lane: 'video',
    priority: 0,
    // Decision 0013 counts timed-out image calls only: a video's is retried like any other failure.
    generation: { timedOutCallMayBeBilled: false },
  },
  upscale_image: {
    maxAttempts: GENERATION_MAX_ATTEMPTS,
    lane: 'upscale',
    priority: 0,
    // The upscaler runs in the worker: nothing is billed.
    generation: { timedOutCallMayBeBilled: false },
  },
  send_email: { maxAttempts: 10, lane: 'background', priority: 0 },
  send_task_end_email: { maxAttempts: 10, lane: 'background', priority: 0 },
  send_password_reset: { maxAttempts: 5, lane: 'background', priority: 0 },
  verify_payment: { maxAttempts: 3, lane: 'background', priority: 0 },
  build_data_export: { maxAttempts: 3, lane: 'background', priority: 0 },
  // The lab away: graphile-worker's backoff over about two days (the 15th attempt waits ~6 h); the
  // order's id is its idempotency key, so no retry makes a second order. Then an operator retries.
  submit_print_order: { maxAttempts: 15, lane: 'background', priority: 0 },
  sync_print_order: { maxAttempts: 8, lane: 'background', priority: 0 },
  cleanup_sessions: { maxAttempts: GRAPHILE_MAX_ATTEMPTS, lane: 'background', priority: 0, schedule: '0 3 * * *' },
  cleanup_auth_records: {
    maxAttempts: GRAPHILE_MAX_ATTEMPTS,
    lane: 'background',
    priority: 0,
    schedule: '30 3 * * *',
  },
  expire_media: { maxAttempts: GRAPHILE_MAX_ATTEMPTS, lane: 'background', priority: 0, schedule: '0 * * * *' },
  recover_stalled_tasks: {
    maxAttempts: GRAPHILE_MAX_ATTEMPTS,
    lane: 'background',
    priority: 0,
    schedule: '* * * * *',
  },
  rollup_analytics: {
    maxAttempts: GRAPHILE_MAX_ATTEMPTS,
    lane: 'background',
    priority: 0,
    schedule: '5,35 * * * *',
  },
  sweep_print_orders: {
    maxAttempts: GRAPHILE_MAX_ATTEMPTS,
    lane: 'background',
    priority: 0,
    schedule: '20 */3 * * *',
  },
} as const satisfies Record<JobName, JobKind>

/** The jobs that run a generation task, keyed by its id. */
export type GenerationJobName = {
  [Name in JobName]: (typeof jobKinds)[Name] extends { generation: object } ? Name : never
}[JobName]

export const isGenerationJob = (name: string | null): name is GenerationJobName =>
  name !== null && name in jobKinds && 'generation' in jobKinds[name as JobName]

interface JobOptions {
  /** Only for a job that takes over a running one's attempts left (task waits, recovery). */
  maxAttempts?: number
  /** A job key makes the job replace (not duplicate) an earlier one with the same key. */
  jobKey?: string
  runAt?: Date
}

/** Every payload also carries the id of the request that enqueued it, for the worker's log lines. */
type WithRequestId<Payload> = Payload & { requestId?: string }

/**
 * graphile-worker's add_job call for a job of `name`, with its kind's attempts and priority
 * (jobKinds), as an expression for a statement that does more (enqueueJob selects it alone).
 * Enqueued while a request is handled, the job carries that request's id (worker/job-context.ts
 * logs it).
 */
export function addJobCall<Name extends JobName>(name: Name, payload: JobPayloads[Name], options: JobOptions = {}) {
  const kind: JobKind = jobKinds[name]
  const requestId = currentRequestContext()?.requestId
  const carried: WithRequestId<JobPayloads[Name]> = requestId ? { ...payload, requestId } : payload
  return sql<unknown>`graphile_worker.add_job(
    identifier => ${name},
    payload => ${JSON.stringify(carried)}::json,
    max_attempts => ${options.maxAttempts ?? kind.maxAttempts},
    job_key => ${options.jobKey ?? null},
    priority => ${kind.priority},
    run_at => ${options.runAt ?? null}::timestamptz
  )`
}

/**
 * Adds a graphile-worker job with SQL on the given connection, so that inside a transaction the job
 * exists only if the transaction commits.
 */
export async function enqueueJob<Name extends JobName>(
  db: DB | Tx,
  name: Name,
  payload: JobPayloads[Name],
  options: JobOptions = {},
) {
  await sql`SELECT ${addJobCall(name, payload, options)}`.execute(db)
}
