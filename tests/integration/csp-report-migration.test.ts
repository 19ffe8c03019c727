import { type Kysely, sql } from 'kysely'
import { getDb } from '#platform/db.server.ts'
import { down, up } from '../../migrations/2026-11-26-0030-csp-report-counts.ts'

// The reports kept before CSP reports were counted by kind: their URLs lose query strings (tokens)
// and identical kinds merge into one row with the count.

test('the migration cuts the stored URLs and merges identical reports', async () => {
  const db = getDb() as unknown as Kysely<unknown>
  await down(db)
  await sql`DELETE FROM csp_reports`.execute(db)
  await sql`
    INSERT INTO csp_reports (received_at, page, blocked_url, directive, disposition) VALUES
      (now() - interval '2 hours', 'https://pawtrait.example/auth/callback?token=old-1', 'https://ads.example/x.js?u=1', 'script-src-elem', 'enforce'),
      (now() - interval '1 hour', 'https://pawtrait.example/auth/callback?token=old-2#f', 'https://ads.example/y.js', 'script-src-elem', 'enforce'),
      (now(), 'http://localhost:3000', 'inline', 'script-src-elem', 'report')
  `.execute(db)
  await up(db)
  const rows = await getDb()
    .selectFrom('csp_reports')
    .select(['page', 'blocked_url', 'directive', 'disposition', 'count'])
    .orderBy('id')
    .execute()
  expect(rows).toEqual([
    {
      page: '/auth/callback',
      blocked_url: 'https://ads.example',
      directive: 'script-src-elem',
      disposition: 'enforce',
      count: 2,
    },
    { page: '/', blocked_url: 'inline', directive: 'script-src-elem', disposition: 'report', count: 1 },
  ])
  expect(JSON.stringify(rows)).not.toContain('old-')
})
