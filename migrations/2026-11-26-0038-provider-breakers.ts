import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // One circuit breaker per image provider, shared by every worker (docs/decisions/0033).
  await sql`
    CREATE TABLE provider_breakers (
      provider text PRIMARY KEY,
      state text NOT NULL DEFAULT 'closed' CHECK (state IN ('closed', 'open', 'half_open')),
      failures integer NOT NULL DEFAULT 0,
      window_started_at timestamptz,
      opened_at timestamptz,
      open_reason text,
      probe_started_at timestamptz,
      last_error text,
      last_error_at timestamptz,
      owner_told_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db)
  // Each move of a task to the next provider: /analytics counts them per day, the bench times them.
  await sql`
    CREATE TABLE provider_failovers (
      id bigserial PRIMARY KEY,
      task_id uuid REFERENCES generation_tasks (id) ON DELETE SET NULL,
      from_provider text NOT NULL,
      to_provider text NOT NULL,
      reason text NOT NULL,
      failed_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db)
  await sql`CREATE INDEX provider_failovers_created_at ON provider_failovers (created_at)`.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`DROP TABLE provider_failovers`.execute(db)
  await sql`DROP TABLE provider_breakers`.execute(db)
}
