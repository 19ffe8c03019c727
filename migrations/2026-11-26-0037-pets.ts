import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // Saved pets (issue 31, item 6): what a user tells us about a pet once, picked in any generator
  // instead of uploading again. Deleting the owner deletes the rows; the stored photos are deleted
  // by the code that deletes the user (domain/user-management), which reads their keys first.
  await sql`
    CREATE TABLE pets (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL,
      species text NOT NULL,
      breed text NOT NULL DEFAULT '',
      colours text NOT NULL DEFAULT '',
      markings text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX pets_user ON pets (user_id, created_at);
    CREATE TABLE pet_photos (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      pet_id uuid NOT NULL REFERENCES pets (id) ON DELETE CASCADE,
      key text NOT NULL,
      width integer NOT NULL,
      height integer NOT NULL,
      position integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX pet_photos_pet ON pet_photos (pet_id, position);
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`DROP TABLE pet_photos`.execute(db)
  await sql`DROP TABLE pets`.execute(db)
}
