import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // Daily rollups of analytics_events (UTC days, as the dashboard counts them). A day's row in
  // analytics_rollup_days says its counts exist and records the raw events they came from (how
  // many, the highest id): a day whose raw events no longer match is rolled up again. The count
  // tables hang off that row, so replacing a day is one DELETE and a few INSERTs.
  await sql`
    CREATE TABLE analytics_rollup_days (
      day date PRIMARY KEY,
      event_count bigint NOT NULL,
      max_event_id bigint,
      rolled_up_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE analytics_daily_counts (
      day date NOT NULL REFERENCES analytics_rollup_days (day) ON DELETE CASCADE,
      type text NOT NULL,
      count bigint NOT NULL,
      PRIMARY KEY (day, type)
    );
    CREATE TABLE analytics_daily_payment_methods (
      day date NOT NULL REFERENCES analytics_rollup_days (day) ON DELETE CASCADE,
      method text NOT NULL,
      count bigint NOT NULL,
      PRIMARY KEY (day, method)
    );
    CREATE TABLE analytics_daily_locations (
      day date NOT NULL REFERENCES analytics_rollup_days (day) ON DELETE CASCADE,
      country text NOT NULL,
      city text NOT NULL,
      count bigint NOT NULL,
      PRIMARY KEY (day, country, city)
    );
    -- One row: the highest event id the last rollup pass looked at, and the first day whose raw
    -- events are all still kept (null until retention has deleted any).
    CREATE TABLE analytics_rollup_state (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      checked_through_id bigint NOT NULL DEFAULT 0,
      raw_events_since date
    );
    INSERT INTO analytics_rollup_state DEFAULT VALUES;
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`
    DROP TABLE analytics_rollup_state, analytics_daily_locations, analytics_daily_payment_methods,
      analytics_daily_counts, analytics_rollup_days;
  `.execute(db)
}
