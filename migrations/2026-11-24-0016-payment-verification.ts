import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // The latest on-chain check of a USDT payment proof (one row a proof, replaced by each check).
  // PayPal proofs have none: they are checked by hand.
  await sql`
    CREATE TABLE payment_verifications (
      proof_id uuid PRIMARY KEY REFERENCES payment_proofs (id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('confirmed', 'unconfirmed', 'mismatch', 'not_found', 'unavailable')),
      network text NOT NULL CHECK (network IN ('tron', 'ethereum')),
      amount_usd numeric(38, 6),
      to_address text,
      confirmations integer,
      detail text NOT NULL,
      checked_at timestamptz NOT NULL DEFAULT now()
    );
  `.execute(db)
  // A transaction is credited at most once, whichever user, method or path (manual approval,
  // automatic approval, a retry) gets there first: the same hash with or without 0x, in any case.
  await sql`
    CREATE UNIQUE INDEX payment_proofs_credited_once
      ON payment_proofs ((lower(regexp_replace(transaction_id, '^0x', '', 'i'))))
      WHERE status = 'approved';
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`DROP INDEX payment_proofs_credited_once`.execute(db)
  await sql`DROP TABLE payment_verifications`.execute(db)
}
