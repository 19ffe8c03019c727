import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // "Make it bigger" (issue 32, item 3): an upscale is a task like any other, with its own source,
  // and its price is a setting of its own (optional in PUT /api/system-config, decision 0036).
  await sql`
    ALTER TABLE generation_tasks DROP CONSTRAINT IF EXISTS generation_tasks_source_check;
    ALTER TABLE generation_tasks
      ADD CONSTRAINT generation_tasks_source_check CHECK (source IN ('generate', 'template', 'upscale'));
    ALTER TABLE system_config
      ADD COLUMN upscale_cost integer NOT NULL DEFAULT 2 CHECK (upscale_cost >= 0);
  `.execute(db)
}
