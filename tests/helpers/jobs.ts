import type { JobHelpers } from 'graphile-worker'
import { sql } from 'kysely'
import { getDb } from '#platform/db.server.ts'

/** The payloads of the queued graphile-worker jobs with this task name, oldest first (the public view hides payloads). */
export async function queuedJobs<Payload = Record<string, unknown>>(taskIdentifier: string): Promise<Payload[]> {
  const { rows } = await sql<{ payload: Payload }>`
    SELECT jobs.payload FROM graphile_worker._private_jobs jobs
    JOIN graphile_worker._private_tasks tasks ON tasks.id = jobs.task_id
    WHERE tasks.identifier = ${taskIdentifier}
    ORDER BY jobs.id
  `.execute(getDb())
  return rows.map((row) => row.payload)
}

/** The graphile-worker helpers a task handler reads, for running one attempt in the test process. */
export function jobHelpers(attempts: number, maxAttempts = 4): JobHelpers {
  const log = () => {}
  return {
    job: { attempts, max_attempts: maxAttempts },
    logger: { info: log, warn: log, error: log, debug: log },
    abortSignal: new AbortController().signal,
  } as unknown as JobHelpers
}
