import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // One live share page per version (issue 38, item 1): sharing a version that has a page answers
  // that page, and the unique index is what makes a burst of shares insert one row. Pages made
  // twice for one version before this migration keep working (their addresses may be out there):
  // all but the oldest are marked `duplicate` and stay outside the index.
  await sql`
    ALTER TABLE share_pages ADD COLUMN duplicate boolean NOT NULL DEFAULT false;
    UPDATE share_pages s SET duplicate = true
      WHERE EXISTS (
        SELECT 1 FROM share_pages o
        WHERE o.task_id = s.task_id AND o.version_index = s.version_index
          AND (o.created_at, o.slug) < (s.created_at, s.slug)
      );
    CREATE UNIQUE INDEX share_pages_one_per_version ON share_pages (task_id, version_index) WHERE NOT duplicate;
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`
    DROP INDEX share_pages_one_per_version;
    ALTER TABLE share_pages DROP COLUMN duplicate;
  `.execute(db)
}
