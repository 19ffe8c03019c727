import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // What each pet beyond the first adds to a version's price (issue 41, item 2).
  await sql`
    ALTER TABLE system_config ADD COLUMN extra_pet_cost integer NOT NULL DEFAULT 1 CHECK (extra_pet_cost >= 0)
  `.execute(db)

  // A version's title (issue 41, item 3): its text, style and font, and the titled copy's file.
  // The plain file stays in `key`; either all four are set or none is.
  await sql`
    ALTER TABLE task_versions
      ADD COLUMN title text,
      ADD COLUMN title_style text,
      ADD COLUMN title_font text,
      ADD COLUMN titled_key text,
      ADD CONSTRAINT task_versions_title_whole CHECK (
        (title IS NULL AND title_style IS NULL AND title_font IS NULL AND titled_key IS NULL)
        OR (title IS NOT NULL AND title_style IS NOT NULL AND title_font IS NOT NULL AND titled_key IS NOT NULL)
      )
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`
    ALTER TABLE task_versions
      DROP CONSTRAINT task_versions_title_whole,
      DROP COLUMN titled_key,
      DROP COLUMN title_font,
      DROP COLUMN title_style,
      DROP COLUMN title
  `.execute(db)
  await sql`ALTER TABLE system_config DROP COLUMN extra_pet_cost`.execute(db)
}
