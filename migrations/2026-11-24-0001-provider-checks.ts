import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // The last result of each provider's key-and-model check (npm run providers:check, worker start-up),
  // kept so the operator's status page can show it without calling the provider.
  await sql`
    CREATE TABLE provider_checks (
      provider text PRIMARY KEY,
      model text NOT NULL,
      ok boolean NOT NULL,
      detail text NOT NULL,
      checked_at timestamptz NOT NULL DEFAULT now()
    );
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`DROP TABLE provider_checks`.execute(db)
}
