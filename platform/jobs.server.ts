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
}

export type JobName = keyof JobPayloads

interface JobOptions {
  maxAttempts?: number
  /** A job key makes the job replace (not duplicate) an earlier one with the same key. */
  jobKey?: string
  runAt?: Date
}

/** Every payload also carries the id of the request that enqueued it, for the worker's log lines. */
type WithRequestId<Payload> = Payload & { requestId?: string }

/**
 * Adds a graphile-worker job with SQL on the given connection, so that inside a transaction the job
 * exists only if the transaction commits. Enqueued while a request is handled, the job carries that
 * request's id (worker/job-context.ts logs it).
 */
export async function enqueueJob<Name extends JobName>(
  db: DB | Tx,
  name: Name,
  payload: JobPayloads[Name],
  options: JobOptions = {},
) {
  const requestId = currentRequestContext()?.requestId
  const carried: WithRequestId<JobPayloads[Name]> = requestId ? { ...payload, requestId } : payload
  await sql`
    SELECT graphile_worker.add_job(
      identifier => ${name},
      payload => ${JSON.stringify(carried)}::json,
      max_attempts => ${options.maxAttempts ?? 25},
      job_key => ${options.jobKey ?? null},
      run_at => ${options.runAt ?? null}::timestamptz
    )
  `.execute(db)
}
