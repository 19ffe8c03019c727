import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // Print orders through a print lab (issue 39; decision 0042). print_products is the curated
  // catalogue a superadmin edits (each row a lab SKU); print_lab_products caches the lab's own
  // product data (print areas per variant, shipsTo), null when the lab does not know the SKU.
  // A quote is a price in credits kept 30 minutes; an order copies it, keeps the recipient until
  // the account is deleted (the row stays for accounting), and its ledger lines name it: one
  // spend and at most one refund per order (the unique indexes).
  await sql`
    CREATE TABLE print_products (
      sku text PRIMARY KEY CHECK (sku = upper(sku)),
      kind text NOT NULL CHECK (kind IN ('canvas', 'framed', 'poster')),
      label text NOT NULL,
      width_in integer NOT NULL CHECK (width_in > 0),
      height_in integer NOT NULL CHECK (height_in > 0),
      attribute text CHECK (attribute IN ('wrap', 'color')),
      choices text[] NOT NULL DEFAULT '{}',
      position integer NOT NULL DEFAULT 0,
      offered boolean NOT NULL DEFAULT true,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    INSERT INTO print_products (sku, kind, label, width_in, height_in, attribute, choices, position) VALUES
      ('GLOBAL-CAN-8X10', 'canvas', 'Canvas 8×10 in', 8, 10, 'wrap', '{ImageWrap,MirrorWrap,Black,White}', 10),
      ('GLOBAL-CAN-10X10', 'canvas', 'Canvas 10×10 in', 10, 10, 'wrap', '{ImageWrap,MirrorWrap,Black,White}', 20),
      ('GLOBAL-CAN-12X16', 'canvas', 'Canvas 12×16 in', 12, 16, 'wrap', '{ImageWrap,MirrorWrap,Black,White}', 30),
      ('GLOBAL-CAN-16X24', 'canvas', 'Canvas 16×24 in', 16, 24, 'wrap', '{ImageWrap,MirrorWrap,Black,White}', 40),
      ('GLOBAL-CAN-24X36', 'canvas', 'Canvas 24×36 in', 24, 36, 'wrap', '{ImageWrap,MirrorWrap,Black,White}', 50),
      ('GLOBAL-CFP-12X16', 'framed', 'Framed print 12×16 in', 12, 16, 'color', '{black,white}', 60),
      ('GLOBAL-CFP-20X28', 'framed', 'Framed print 20×28 in', 20, 28, 'color', '{black,white}', 70),
      ('GLOBAL-FAP-12X16', 'poster', 'Fine-art poster 12×16 in', 12, 16, NULL, '{}', 80),
      ('GLOBAL-FAP-16X24', 'poster', 'Fine-art poster 16×24 in', 16, 24, NULL, '{}', 90),
      ('GLOBAL-FAP-24X36', 'poster', 'Fine-art poster 24×36 in', 24, 36, NULL, '{}', 100);

    CREATE TABLE print_lab_products (
      sku text PRIMARY KEY,
      product jsonb,
      fetched_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE print_lab_state (
      lab text PRIMARY KEY,
      last_status integer,
      last_outcome text,
      last_at timestamptz NOT NULL DEFAULT now(),
      last_ok_at timestamptz
    );

    CREATE TABLE print_quotes (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      task_id uuid NOT NULL REFERENCES generation_tasks (id) ON DELETE CASCADE,
      version_index integer NOT NULL,
      sku text NOT NULL,
      attributes jsonb NOT NULL,
      copies integer NOT NULL CHECK (copies > 0),
      country_code text NOT NULL,
      shipping_method text NOT NULL,
      crop_x real NOT NULL,
      crop_y real NOT NULL,
      print_width integer NOT NULL,
      print_height integer NOT NULL,
      items_cost text NOT NULL,
      shipping_cost text NOT NULL,
      currency text NOT NULL,
      credits integer NOT NULL CHECK (credits > 0),
      delivery text NOT NULL,
      mockup_key text,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX print_quotes_expiry ON print_quotes (expires_at);

    CREATE TABLE print_orders (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid REFERENCES users (id) ON DELETE SET NULL,
      task_id uuid REFERENCES generation_tasks (id) ON DELETE SET NULL,
      version_index integer NOT NULL,
      product_label text NOT NULL,
      sku text NOT NULL,
      attributes jsonb NOT NULL,
      copies integer NOT NULL,
      shipping_method text NOT NULL,
      crop_x real NOT NULL,
      crop_y real NOT NULL,
      print_width integer NOT NULL,
      print_height integer NOT NULL,
      credits integer NOT NULL,
      items_cost text NOT NULL,
      shipping_cost text NOT NULL,
      currency text NOT NULL,
      delivery text NOT NULL,
      country_code text NOT NULL,
      recipient jsonb,
      status text NOT NULL DEFAULT 'submitted' CHECK (status IN
        ('submitted', 'at_lab', 'in_production', 'shipped', 'complete', 'cancelled', 'refused', 'submission_failed')),
      lab_order_id text UNIQUE,
      lab_stage text,
      lab_issues jsonb NOT NULL DEFAULT '[]',
      shipments jsonb NOT NULL DEFAULT '[]',
      source_key text,
      mockup_key text,
      print_file_key text,
      print_file_md5 text,
      problem text,
      last_error text,
      refunded_at timestamptz,
      shipped_email_at timestamptz,
      sent_at timestamptz,
      synced_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX print_orders_user ON print_orders (user_id, created_at);
    CREATE INDEX print_orders_open ON print_orders (status)
      WHERE status IN ('submitted', 'at_lab', 'in_production', 'shipped');

    ALTER TABLE credit_transactions ADD COLUMN print_order_id uuid REFERENCES print_orders (id);
    CREATE UNIQUE INDEX credit_transactions_print_spend_once ON credit_transactions (print_order_id)
      WHERE type = 'spend';
    CREATE UNIQUE INDEX credit_transactions_print_refund_once ON credit_transactions (print_order_id)
      WHERE type = 'earn';

    ALTER TABLE system_config ADD COLUMN print_markup numeric(5, 2) NOT NULL DEFAULT 1.6
      CHECK (print_markup >= 1 AND print_markup <= 10);
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`
    ALTER TABLE system_config DROP COLUMN print_markup;
    ALTER TABLE credit_transactions DROP COLUMN print_order_id;
    DROP TABLE print_orders;
    DROP TABLE print_quotes;
    DROP TABLE print_lab_state;
    DROP TABLE print_lab_products;
    DROP TABLE print_products;
  `.execute(db)
}
