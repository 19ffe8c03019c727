import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // Content-Security-Policy violations browsers reported (POST /csp-report), for the operator's
  // status page; kept a week.
  await sql`
    CREATE TABLE csp_reports (
      id bigserial PRIMARY KEY,
      received_at timestamptz NOT NULL DEFAULT now(),
      page text NOT NULL,
      blocked_url text NOT NULL,
      directive text NOT NULL,
      disposition text NOT NULL
    );
    CREATE INDEX csp_reports_received_at ON csp_reports (received_at);
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`DROP TABLE csp_reports`.execute(db)
}
