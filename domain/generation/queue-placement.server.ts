import { sql } from 'kysely'
import type { Tx } from '#platform/db.server.ts'

/**
 * Where a likeness fix's job goes: to the front of its user's own queue, not of everyone's.
 * graphile-worker takes jobs by priority, then run_at; a run_at just before that of the user's
 * earliest waiting image job puts the fix ahead of the user's other work while other users' jobs
 * keep their places relative to it. With nothing of the user's waiting, now: the back of the queue.
 */
export async function frontOfUserQueue(tx: Tx, userId: string): Promise<Date> {
  const { rows } = await sql<{ run_at: Date }>`
    SELECT least(now(), min(j.run_at) - interval '1 millisecond') AS run_at
    FROM graphile_worker.jobs j
    JOIN generation_tasks t ON j.key = t.id::text
    WHERE t.user_id = ${userId} AND t.status = 'queued'
      AND j.task_identifier = 'generate_image' AND j.locked_at IS NULL
  `.execute(tx)
  return rows[0]!.run_at
}
