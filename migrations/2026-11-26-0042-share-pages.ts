import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // Share pages and referrals (issue 32, items 4 and 5; decision 0037). A share page is one
  // version of a user's finished image under a random slug; its derivatives (the page's image and
  // the 1200×630 card) are stored under their own keys, deleted with the page. A referral is the
  // sharer a visitor registered through; referral_payouts has one row per referred user at most,
  // which is what makes the reward once-only however many approvals race.
  await sql`
    CREATE TABLE share_pages (
      slug text PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      task_id uuid NOT NULL REFERENCES generation_tasks (id) ON DELETE CASCADE,
      version_index integer NOT NULL,
      listed boolean NOT NULL DEFAULT false,
      image_key text NOT NULL,
      card_key text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX share_pages_user ON share_pages (user_id, created_at);
    CREATE INDEX share_pages_task ON share_pages (task_id);
    ALTER TABLE users ADD COLUMN referrer_id uuid REFERENCES users (id) ON DELETE SET NULL;
    CREATE TABLE referral_payouts (
      referred_user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      referrer_id uuid REFERENCES users (id) ON DELETE SET NULL,
      amount integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX referral_payouts_referrer ON referral_payouts (referrer_id, created_at);
    ALTER TABLE system_config
      ADD COLUMN referral_credits integer NOT NULL DEFAULT 20,
      ADD COLUMN referral_max_per_month integer NOT NULL DEFAULT 10;
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`
    ALTER TABLE system_config DROP COLUMN referral_credits, DROP COLUMN referral_max_per_month;
    DROP TABLE referral_payouts;
    ALTER TABLE users DROP COLUMN referrer_id;
    DROP TABLE share_pages;
  `.execute(db)
}
