import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // The user's own data (issue 32, item 6; decision 0038). A data export is a zip the worker writes
  // to storage under `exports/<id>/`; its link is signed (an HMAC of the id), so nothing secret is
  // stored. Deleting the user deletes the rows; their files are deleted by deleteAccount.
  // sessions.signed_in_with says how a session began, so that deleting a Google-only account can
  // ask for a fresh Google sign-in (null: a session from before this column).
  await sql`
    CREATE TABLE data_exports (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed')),
      key text,
      size bigint,
      error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      ready_at timestamptz,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX data_exports_user ON data_exports (user_id, created_at);
    CREATE INDEX data_exports_expiry ON data_exports (expires_at);
    ALTER TABLE sessions ADD COLUMN signed_in_with text CHECK (signed_in_with IN ('password', 'google'));
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`ALTER TABLE sessions DROP COLUMN signed_in_with`.execute(db)
  await sql`DROP TABLE data_exports`.execute(db)
}
