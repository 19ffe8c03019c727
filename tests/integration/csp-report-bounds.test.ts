import { cspReportSummary } from '#domain/operator/csp-reports.server.ts'
import { getDb } from '#platform/db.server.ts'
import { startWebProcess } from '#tests/helpers/web-process.ts'
import { waitFor } from '#tests/helpers/worker-process.ts'

// A flood of CSP reports, as a browser extension on many visitors' pages (or one client rotating
// its addresses) sends them, at the real web process behind Fly's proxy: what is stored and logged
// stays bounded while every report is still counted.

const MAX_PER_HOUR = 5
let web: Awaited<ReturnType<typeof startWebProcess>>
beforeAll(async () => {
  web = await startWebProcess({ TRUST_PROXY: 'fly', CSP_REPORTS_MAX_PER_HOUR: String(MAX_PER_HOUR) })
})
afterAll(() => web.stop())

let clients = 0
/** One Reporting API batch from a client address of its own (each address may send 60 a minute). */
async function send(violations: { page: string; blocked: string; directive?: string }[]) {
  const body = violations.map(({ page, blocked, directive = 'script-src-elem' }) => ({
    type: 'csp-violation',
    url: page,
    body: { documentURL: page, blockedURL: blocked, effectiveDirective: directive, disposition: 'enforce' },
  }))
  const response = await fetch(`${web.origin}/csp-report`, {
    method: 'POST',
    headers: { 'content-type': 'application/reports+json', 'fly-client-ip': `203.0.113.${++clients}` },
    body: JSON.stringify(body),
  })
  expect(response.status).toBe(204)
}

const rows = () => getDb().selectFrom('csp_reports').selectAll().orderBy('id').execute()
const logLines = () =>
  web.output
    .join('')
    .split('\n')
    .filter((line) => line.includes('CSP violation') || line.includes('CSP reports'))

test('identical reports are one row with a count, and one log line', async () => {
  // The same injected script on the same page, each time with another token in the page's URL.
  for (let batch = 0; batch < 10; batch++) {
    await send(
      Array.from({ length: 20 }, (_, index) => ({
        page: `https://pawtrait.example/auth/callback?token=secret-${batch}-${index}#x`,
        blocked: `https://ads.example/inject.js?session=${batch}`,
      })),
    )
  }
  expect(await rows()).toMatchObject([
    { directive: 'script-src-elem', page: '/auth/callback', blocked_url: 'https://ads.example', count: 200 },
  ])
  expect(logLines()).toHaveLength(1)
  expect(web.output.join('')).not.toContain('secret-')
})

test(`at most CSP_REPORTS_MAX_PER_HOUR (${MAX_PER_HOUR}) kinds are added an hour; known kinds keep counting`, async () => {
  for (let batch = 0; batch < 10; batch++) {
    await send(
      Array.from({ length: 20 }, (_, index) => ({
        page: `/page-${batch}`,
        blocked: `https://cdn-${index}.example/x.js`,
        directive: index % 2 ? 'img-src' : 'script-src-elem',
      })),
    )
  }
  const stored = await rows()
  expect(stored).toHaveLength(MAX_PER_HOUR)
  const added = stored.slice(1)
  expect(added.map((row) => row.page)).toEqual(['/page-0', '/page-0', '/page-0', '/page-0'])
  expect(added.every((row) => row.count === 1)).toBe(true)

  // The kinds already stored still count, and are not logged again within the hour.
  await send([{ page: '/page-0', blocked: 'https://cdn-0.example/other.js' }])
  await send([{ page: '/auth/callback?token=again', blocked: 'https://ads.example/inject.js' }])
  const after = await rows()
  expect(after.find((row) => row.blocked_url === 'https://cdn-0.example')?.count).toBe(2)
  expect(after.find((row) => row.blocked_url === 'https://ads.example')?.count).toBe(201)

  // One line per stored kind, and one saying that new kinds went unstored.
  await waitFor(() => logLines().length >= MAX_PER_HOUR + 1)
  const lines = logLines()
  expect(lines.filter((line) => line.includes('CSP violation'))).toHaveLength(MAX_PER_HOUR)
  expect(lines.filter((line) => line.includes('CSP_REPORTS_MAX_PER_HOUR'))).toHaveLength(1)

  const summary = await cspReportSummary(getDb())
  expect(summary.lastDay).toBe(201 + 2 + 3)
  expect(summary.recent[0]).toMatchObject({ page: '/auth/callback', count: 201 })
})

test('a report with a NUL character in it is counted without it, never a 500', async () => {
  // PostgreSQL text cannot hold U+0000; a JSON body can (`\u0000`). A kind already stored (above).
  const ads = async () => (await rows()).find((row) => row.blocked_url === 'https://ads.example')?.count
  const before = await ads()
  await send([{ page: '/auth/callback', blocked: 'https://ads.example/x.js', directive: 'script-src-\u0000elem' }])
  expect(await ads()).toBe((before ?? 0) + 1)
})
