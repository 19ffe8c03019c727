import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

// A 960 px wide WebP beside the 480 px thumbnail, so high-density screens get sharp grid images
// without downloading the (up to 10 MB) original. NOT NULL is safe: nothing wrote this table before.
export async function up(db: Kysely<unknown>) {
  await sql`ALTER TABLE inspiration_images ADD COLUMN display_key text NOT NULL`.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`ALTER TABLE inspiration_images DROP COLUMN display_key`.execute(db)
}
