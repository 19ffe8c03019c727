import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // A task asks for 1, 2 or 4 versions; its favourite stands for it (its key is the result_key).
  await sql`
    ALTER TABLE generation_tasks
      ADD COLUMN variants integer NOT NULL DEFAULT 1 CHECK (variants BETWEEN 1 AND 10),
      ADD COLUMN favourite_index integer NOT NULL DEFAULT 0 CHECK (favourite_index >= 0)
  `.execute(db)

  // Each delivered version: its stored file and size, and room for the provider and model that made it.
  await sql`
    CREATE TABLE task_versions (
      task_id uuid NOT NULL REFERENCES generation_tasks (id) ON DELETE CASCADE,
      version_index integer NOT NULL CHECK (version_index >= 0),
      key text NOT NULL,
      width integer,
      height integer,
      provider text,
      model text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (task_id, version_index)
    )
  `.execute(db)
  await sql`
    INSERT INTO task_versions (task_id, version_index, key, provider)
    SELECT id, 0, result_key, provider FROM generation_tasks WHERE status = 'completed' AND result_key IS NOT NULL
  `.execute(db)

  // Refunds: once per (task, version) instead of once per task. Every earlier task refund was of
  // a one-version task, so it is version 0's.
  await sql`ALTER TABLE credit_transactions ADD COLUMN version_index integer`.execute(db)
  await sql`UPDATE credit_transactions SET version_index = 0 WHERE type = 'earn' AND task_id IS NOT NULL`.execute(db)
  await sql`
    ALTER TABLE credit_transactions ADD CONSTRAINT credit_transactions_refund_names_version
      CHECK (type <> 'earn' OR task_id IS NULL OR version_index IS NOT NULL)
  `.execute(db)
  await sql`DROP INDEX credit_transactions_refund_once`.execute(db)
  await sql`
    CREATE UNIQUE INDEX credit_transactions_refund_once ON credit_transactions (task_id, version_index) WHERE type = 'earn'
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`DROP INDEX credit_transactions_refund_once`.execute(db)
  await sql`DELETE FROM credit_transactions WHERE type = 'earn' AND version_index > 0`.execute(db)
  await sql`CREATE UNIQUE INDEX credit_transactions_refund_once ON credit_transactions (task_id) WHERE type = 'earn'`.execute(
    db,
  )
  await sql`ALTER TABLE credit_transactions DROP CONSTRAINT credit_transactions_refund_names_version`.execute(db)
  await sql`ALTER TABLE credit_transactions DROP COLUMN version_index`.execute(db)
  await sql`DROP TABLE task_versions`.execute(db)
  await sql`ALTER TABLE generation_tasks DROP COLUMN variants, DROP COLUMN favourite_index`.execute(db)
}
