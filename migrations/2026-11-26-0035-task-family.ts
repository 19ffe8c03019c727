import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // A re-roll or a likeness fix names the task it was made from and the paid run its family started
  // with (the root). The root is a plain uuid: the family's free fixes stay counted after the root
  // itself was deleted or expired.
  await sql`
    ALTER TABLE generation_tasks
      ADD COLUMN parent_task_id uuid REFERENCES generation_tasks (id) ON DELETE SET NULL,
      ADD COLUMN family_root_id uuid;
    CREATE INDEX generation_tasks_parent_idx ON generation_tasks (parent_task_id) WHERE parent_task_id IS NOT NULL;
  `.execute(db)

  // One row per paid run that has been re-rolled or fixed: how many free likeness fixes it came with
  // and how many were taken. The conditional UPDATE on used < included makes claiming race-safe.
  await sql`
    CREATE TABLE task_families (
      root_task_id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      free_fixes_included integer NOT NULL CHECK (free_fixes_included >= 0),
      free_fixes_used integer NOT NULL DEFAULT 0 CHECK (free_fixes_used >= 0),
      created_at timestamptz NOT NULL DEFAULT now()
    );
  `.execute(db)

  // What users said was off, kept apart from the tasks (which expire) so analytics can count them
  // per template for as long as the analytics keep anything.
  await sql`
    CREATE TABLE likeness_fix_reports (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      task_id uuid NOT NULL,
      fixed_task_id uuid NOT NULL,
      user_id uuid REFERENCES users (id) ON DELETE SET NULL,
      template_id text,
      provider text NOT NULL,
      reasons text[] NOT NULL,
      note text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX likeness_fix_reports_created_idx ON likeness_fix_reports (created_at);
  `.execute(db)

  await sql`
    ALTER TABLE system_config
      ADD COLUMN free_likeness_fixes integer NOT NULL DEFAULT 1 CHECK (free_likeness_fixes >= 0)
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`
    ALTER TABLE system_config DROP COLUMN free_likeness_fixes;
    DROP TABLE likeness_fix_reports;
    DROP TABLE task_families;
    ALTER TABLE generation_tasks DROP COLUMN family_root_id, DROP COLUMN parent_task_id;
  `.execute(db)
}
