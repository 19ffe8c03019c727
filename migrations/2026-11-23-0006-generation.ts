import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // The running worker touches heartbeat_at every few seconds; a processing task whose heartbeat
  // went quiet belongs to a worker that died, and recover_stalled_tasks hands it on.
  await sql`ALTER TABLE generation_tasks ADD COLUMN heartbeat_at timestamptz`.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`ALTER TABLE generation_tasks DROP COLUMN heartbeat_at`.execute(db)
}
