import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // Issue 38, items 4 to 6.
  // - The photo check's vision cache is keyed by the picture it shows the model now, not the file's
  //   bytes: the rows keyed by bytes could never be found again.
  // - A provider's breaker counts failing users, not failing calls: one row per provider and user,
  //   its last failure (and the task). The task that opened a breaker never takes its probe.
  // - The addresses each user was seen at (IPv4, the IPv6 /64 and its /48), for the referral
  //   self-check; and the referral rewards paid per sharer and month, a counter that stays when
  //   the visitors' accounts (and their referral_payouts rows) are deleted.
  await sql`
    DELETE FROM photo_checks;
    CREATE TABLE provider_breaker_failures (
      provider text NOT NULL,
      user_id uuid NOT NULL,
      task_id uuid NOT NULL,
      failed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (provider, user_id)
    );
    ALTER TABLE provider_breakers ADD COLUMN opened_by_task_id uuid;
    CREATE TABLE seen_addresses (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      client_key text NOT NULL,
      site_key text,
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, client_key)
    );
    CREATE INDEX seen_addresses_last_seen ON seen_addresses (last_seen_at);
    INSERT INTO seen_addresses (user_id, client_key, last_seen_at)
      SELECT user_id, client_key, last_seen_at FROM sign_in_addresses;
    CREATE TABLE referral_rewards_monthly (
      referrer_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      month date NOT NULL,
      rewards integer NOT NULL,
      PRIMARY KEY (referrer_id, month)
    );
    INSERT INTO referral_rewards_monthly (referrer_id, month, rewards)
      SELECT referrer_id, date_trunc('month', created_at)::date, count(*)
      FROM referral_payouts
      WHERE amount > 0 AND referrer_id IS NOT NULL
      GROUP BY 1, 2;
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`
    DROP TABLE referral_rewards_monthly;
    DROP TABLE seen_addresses;
    ALTER TABLE provider_breakers DROP COLUMN opened_by_task_id;
    DROP TABLE provider_breaker_failures;
  `.execute(db)
}
