import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // Card payments through Stripe Checkout (issue 40; decision 0041). A paid Checkout Session becomes
  // a payment_proofs row of method 'card', approved by the system (reviewer NULL), whose
  // transaction_id is the session id: payment_proofs_transaction_key makes it once per session.
  // card_checkouts is the session as the app knows it from creation on; its status moves to 'paid'
  // once, under the row's lock, in the transaction that credits. reversed_credits is how many of
  // the payment's credits refunds and disputes have covered so far. card_payment_events holds the
  // ids of the Stripe events that took credits back, so each applies once.
  await sql`
    ALTER TABLE payment_proofs DROP CONSTRAINT payment_proofs_payment_method_check;
    ALTER TABLE payment_proofs ADD CONSTRAINT payment_proofs_payment_method_check
      CHECK (payment_method IN ('paypal_me', 'usdt_trc20', 'usdt_erc20', 'card'));
    CREATE TABLE card_checkouts (
      session_id text PRIMARY KEY,
      user_id uuid REFERENCES users (id) ON DELETE SET NULL,
      credit_amount integer NOT NULL CHECK (credit_amount >= 100 AND credit_amount % 100 = 0),
      amount_cents integer NOT NULL CHECK (amount_cents > 0),
      currency text NOT NULL,
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'processing', 'paid', 'failed', 'expired')),
      payment_intent text UNIQUE,
      payment_proof_id uuid UNIQUE REFERENCES payment_proofs (id) ON DELETE SET NULL,
      reversed_credits integer NOT NULL DEFAULT 0 CHECK (reversed_credits >= 0 AND reversed_credits <= credit_amount),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX card_checkouts_user ON card_checkouts (user_id, created_at);
    CREATE TABLE card_payment_events (
      event_id text PRIMARY KEY,
      type text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    );
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`
    DROP TABLE card_payment_events;
    DROP TABLE card_checkouts;
    DELETE FROM payment_proofs WHERE payment_method = 'card';
    ALTER TABLE payment_proofs DROP CONSTRAINT payment_proofs_payment_method_check;
    ALTER TABLE payment_proofs ADD CONSTRAINT payment_proofs_payment_method_check
      CHECK (payment_method IN ('paypal_me', 'usdt_trc20', 'usdt_erc20'));
  `.execute(db)
}
