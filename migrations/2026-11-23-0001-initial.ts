import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  await sql`
    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      email text NOT NULL,
      name text NOT NULL,
      password_hash text,
      role text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin', 'superadmin')),
      credits integer NOT NULL DEFAULT 0 CHECK (credits >= 0),
      profile_picture text,
      google_id text UNIQUE,
      email_verified boolean NOT NULL DEFAULT false,
      is_banned boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_login_at timestamptz
    );
    CREATE UNIQUE INDEX users_email_key ON users (lower(email));

    CREATE TABLE sessions (
      token_hash text PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX sessions_user_id_idx ON sessions (user_id);
    CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);

    CREATE TABLE verification_codes (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      email text NOT NULL,
      purpose text NOT NULL CHECK (purpose IN ('register', 'reset')),
      code_hash text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX verification_codes_lookup_idx ON verification_codes (lower(email), purpose, created_at DESC);

    CREATE TABLE rate_limits (
      key text PRIMARY KEY,
      hits integer NOT NULL,
      window_ends_at timestamptz NOT NULL
    );

    CREATE TABLE system_config (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      new_user_bonus_credits integer NOT NULL CHECK (new_user_bonus_credits >= 0),
      image_generation_credit_cost integer NOT NULL CHECK (image_generation_credit_cost >= 0),
      video_generation_credit_cost integer NOT NULL CHECK (video_generation_credit_cost >= 0),
      fast_video_generation_credit_cost integer NOT NULL CHECK (fast_video_generation_credit_cost >= 0),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE styles (
      value text PRIMARY KEY,
      label text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('gallery', 'generator')),
      position integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE generation_tasks (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('image', 'video')),
      source text NOT NULL DEFAULT 'generate' CHECK (source IN ('generate', 'template')),
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'completed', 'failed')),
      progress integer NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
      params jsonb NOT NULL DEFAULT '{}',
      input_keys text[] NOT NULL DEFAULT '{}',
      result_key text,
      error text,
      credit_cost integer NOT NULL CHECK (credit_cost >= 0),
      provider text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      expires_at timestamptz
    );
    CREATE INDEX generation_tasks_user_idx ON generation_tasks (user_id, kind, created_at DESC);
    CREATE INDEX generation_tasks_active_idx ON generation_tasks (status, created_at)
      WHERE status IN ('queued', 'processing');
    CREATE INDEX generation_tasks_expires_idx ON generation_tasks (expires_at) WHERE expires_at IS NOT NULL;

    CREATE TABLE payment_proofs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      payment_method text NOT NULL CHECK (payment_method IN ('paypal_me', 'usdt_trc20', 'usdt_erc20')),
      transaction_id text NOT NULL,
      credit_amount integer NOT NULL CHECK (credit_amount >= 100 AND credit_amount % 100 = 0),
      amount_cents integer NOT NULL CHECK (amount_cents > 0),
      note text NOT NULL DEFAULT '',
      screenshot_key text,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
      reviewer_id uuid REFERENCES users (id) ON DELETE SET NULL,
      review_reason text,
      reviewed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX payment_proofs_transaction_key ON payment_proofs (payment_method, lower(transaction_id));
    CREATE INDEX payment_proofs_pending_idx ON payment_proofs (created_at) WHERE status = 'pending';

    CREATE TABLE credit_transactions (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      type text NOT NULL CHECK (type IN ('earn', 'spend', 'purchase', 'adjustment')),
      amount integer NOT NULL,
      description text NOT NULL,
      -- No foreign key: the ledger is history and keeps naming its task after the task (an expired
      -- or deleted image) is gone, so a refund stays recognisable as one.
      task_id uuid,
      payment_proof_id uuid REFERENCES payment_proofs (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX credit_transactions_user_idx ON credit_transactions (user_id, created_at DESC);
    -- A task is refunded at most once, a payment proof credited at most once.
    CREATE UNIQUE INDEX credit_transactions_refund_once ON credit_transactions (task_id) WHERE type = 'earn';
    CREATE UNIQUE INDEX credit_transactions_purchase_once ON credit_transactions (payment_proof_id)
      WHERE type = 'purchase';

    CREATE TABLE inspiration_images (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL DEFAULT '',
      style text NOT NULL REFERENCES styles (value) ON UPDATE CASCADE,
      prompt text NOT NULL DEFAULT '',
      template_prompt text NOT NULL DEFAULT '',
      other_params jsonb NOT NULL DEFAULT '{}',
      image_key text NOT NULL,
      thumbnail_key text NOT NULL,
      width integer NOT NULL,
      height integer NOT NULL,
      created_by uuid REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX inspiration_images_style_idx ON inspiration_images (style, created_at DESC);
    CREATE INDEX inspiration_images_created_idx ON inspiration_images (created_at DESC);

    CREATE TABLE analytics_events (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      type text NOT NULL,
      user_id uuid REFERENCES users (id) ON DELETE SET NULL,
      path text,
      country text,
      city text,
      details jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX analytics_events_type_created_idx ON analytics_events (type, created_at);
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`
    DROP TABLE analytics_events, inspiration_images, credit_transactions, payment_proofs,
      generation_tasks, styles, system_config, rate_limits, verification_codes, sessions, users;
  `.execute(db)
}
