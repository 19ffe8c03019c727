import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // Failed password sign-ins per account from every address (domain/limits/login-delay.server.ts):
  // past a few, each further try waits longer. Keyed by the email as typed (lowercased), whether or
  // not an account has it, so the answers never tell which emails are registered.
  await sql`
    CREATE TABLE login_failures (
      account text PRIMARY KEY,
      failures integer NOT NULL,
      last_failure_at timestamptz NOT NULL
    )
  `.execute(db)
  // Where each user proved who they are (a sign-in, a registration, a password reset), by limit key
  // (an IPv4 address or an IPv6 /64): a right password from there is never delayed.
  await sql`
    CREATE TABLE sign_in_addresses (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      client_key text NOT NULL,
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, client_key)
    )
  `.execute(db)
  // Which limit a counter belongs to and its ceiling, so the status page can say which limits are tripped.
  await sql`ALTER TABLE rate_limits ADD COLUMN name text, ADD COLUMN max_hits integer`.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`ALTER TABLE rate_limits DROP COLUMN name, DROP COLUMN max_hits`.execute(db)
  await sql`DROP TABLE sign_in_addresses`.execute(db)
  await sql`DROP TABLE login_failures`.execute(db)
}
