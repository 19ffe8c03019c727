import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // What a vision model said about a photo, by the SHA-256 of the uploaded bytes: the same photo
  // (uploaded again, checked on upload then on submit, picked from a saved pet) is never paid for twice.
  await sql`
    CREATE TABLE photo_checks (
      sha256 text PRIMARY KEY,
      provider text NOT NULL,
      model text NOT NULL,
      answer jsonb NOT NULL,
      checked_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`DROP TABLE photo_checks`.execute(db)
}
