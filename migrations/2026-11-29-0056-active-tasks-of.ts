import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // How many of a user's tasks are queued or running, for the paying statement's fairness limit
  // (domain/generation/paid-task.server.ts). PL/pgSQL and volatile, so its query takes a snapshot
  // of its own each time it runs: in the WHERE of the UPDATE that debits the user, it runs again on
  // the row a concurrent payment of the same user just committed, and counts that payment's task.
  await sql`
    CREATE FUNCTION active_tasks_of(owner uuid) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      RETURN (SELECT count(*) FROM generation_tasks WHERE user_id = owner AND status IN ('queued', 'processing'));
    END $$
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`DROP FUNCTION active_tasks_of(uuid)`.execute(db)
}
