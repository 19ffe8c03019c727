import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // The dashboard groups a range's page views by place: with country and city in the index itself,
  // PostgreSQL answers that from the index alone instead of visiting every matching row.
  await sql`
    CREATE INDEX analytics_events_page_view_location_idx ON analytics_events (created_at)
      INCLUDE (country, city) WHERE type = 'page_view';
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`DROP INDEX analytics_events_page_view_location_idx`.execute(db)
}
