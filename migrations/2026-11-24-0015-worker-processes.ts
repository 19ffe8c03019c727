import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // Each worker process marks itself alive here every few seconds, so the operator's status page
  // can list the workers seen in the last minute without asking Fly.
  await sql`
    CREATE TABLE worker_processes (
      id text PRIMARY KEY,
      hostname text NOT NULL,
      pid integer NOT NULL,
      version text NOT NULL,
      concurrency integer NOT NULL,
      started_at timestamptz NOT NULL DEFAULT now(),
      seen_at timestamptz NOT NULL DEFAULT now()
    );
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`DROP TABLE worker_processes`.execute(db)
}
