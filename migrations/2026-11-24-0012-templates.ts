import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // One name per concept: the gallery's pictures are templates in the code and the database; the
  // spec's URLs (/update-case, /api/image/delete/inspiration/:id) keep their names.
  await sql`ALTER TABLE inspiration_images RENAME TO templates`.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`ALTER TABLE templates RENAME TO inspiration_images`.execute(db)
}
