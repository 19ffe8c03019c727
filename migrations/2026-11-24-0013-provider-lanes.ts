import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // One row per request sent to a rate-limited provider: every worker process on every machine
  // counts the last minute's rows before sending (worker/providers/shared-rate-limit.ts).
  await sql`
    CREATE TABLE provider_requests (
      id bigserial PRIMARY KEY,
      provider text NOT NULL,
      sent_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE INDEX provider_requests_provider_sent_at ON provider_requests (provider, sent_at);
  `.execute(db)
  // waited_ms: time spent waiting for room at the provider (rate limit, 429), against TASK_MAX_WAIT_MS.
  // provider_operation: the Veo operation of the task, kept so a retry or a restart resumes it.
  // timed_out_calls: image calls that timed out (the provider may have billed them): retried once.
  await sql`
    ALTER TABLE generation_tasks
      ADD COLUMN waited_ms integer NOT NULL DEFAULT 0,
      ADD COLUMN provider_operation text,
      ADD COLUMN timed_out_calls integer NOT NULL DEFAULT 0
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`
    ALTER TABLE generation_tasks
      DROP COLUMN waited_ms,
      DROP COLUMN provider_operation,
      DROP COLUMN timed_out_calls
  `.execute(db)
  await sql`DROP TABLE provider_requests`.execute(db)
}
