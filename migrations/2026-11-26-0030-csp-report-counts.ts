import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // One row per kind of violation (directive, page path, blocked origin, disposition) with a count,
  // instead of one per report: a flood of reports can no longer fill the table (decision 0025).
  // The stored URLs lose their query strings, where links carry tokens, and the rows already kept
  // are cut the same way and merged.
  await sql`
    ALTER TABLE csp_reports
      ADD COLUMN count integer NOT NULL DEFAULT 1,
      ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now(),
      ADD COLUMN logged_at timestamptz NOT NULL DEFAULT now();
    UPDATE csp_reports SET
      page = coalesce(nullif(regexp_replace(regexp_replace(page, '[?#].*$', ''), '^[a-z][a-z0-9+.-]*://[^/]*', '', 'i'), ''), '/'),
      blocked_url = regexp_replace(regexp_replace(blocked_url, '^([a-z][a-z0-9+.-]*://[^/?#]*).*$', '\\1', 'i'), '[?#].*$', ''),
      last_seen_at = received_at,
      logged_at = received_at;
    WITH kinds AS (
      SELECT min(id) AS kept, count(*) AS reports, max(received_at) AS last_seen
      FROM csp_reports GROUP BY directive, page, blocked_url, disposition
    )
    UPDATE csp_reports SET count = kinds.reports, last_seen_at = kinds.last_seen
    FROM kinds WHERE csp_reports.id = kinds.kept;
    DELETE FROM csp_reports AS later USING csp_reports AS first
    WHERE later.directive = first.directive AND later.page = first.page
      AND later.blocked_url = first.blocked_url AND later.disposition = first.disposition
      AND later.id > first.id;
    CREATE UNIQUE INDEX csp_reports_kind ON csp_reports (directive, page, blocked_url, disposition);
    CREATE INDEX csp_reports_last_seen_at ON csp_reports (last_seen_at);
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`
    DROP INDEX csp_reports_kind;
    DROP INDEX csp_reports_last_seen_at;
    ALTER TABLE csp_reports DROP COLUMN count, DROP COLUMN last_seen_at, DROP COLUMN logged_at;
  `.execute(db)
}
