import { sql } from 'kysely'
import type { DB, Tx } from './db.server.ts'

/** The jobs the worker knows, with their payloads. worker/tasks/index.ts maps each to its handler. */
export interface JobPayloads {
  cleanup_sessions: Record<string, never>
  cleanup_auth_records: Record<string, never>
  send_email: { to: string; subject: string; text: string; html?: string }
  send_password_reset: { email: string }
  generate_image: { taskId: string }
  generate_video: { taskId: string }
  expire_media: Record<string, never>
  recover_stalled_tasks: Record<string, never>
}

export type JobName = keyof JobPayloads

interface JobOptions {
  maxAttempts?: number
  /** A job key makes the job replace (not duplicate) an earlier one with the same key. */
  jobKey?: string
  runAt?: Date
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
  await sql`
    SELECT graphile_worker.add_job(
      identifier => ${name},
      payload => ${JSON.stringify(payload)}::json,
      max_attempts => ${options.maxAttempts ?? 25},
      job_key => ${options.jobKey ?? null},
      run_at => ${options.runAt ?? null}::timestamptz
    )
  `.execute(db)
}
