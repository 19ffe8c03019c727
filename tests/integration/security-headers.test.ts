import * as authCallback from '#app/routes/auth.callback.tsx'
import * as contactPage from '#app/routes/contact.tsx'
import * as cspReportRoute from '#app/routes/csp-report.ts'
import * as mediaRoute from '#app/routes/media.$.ts'
import { getDb } from '#platform/db.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { getStorage, mediaKey } from '#platform/storage.server.ts'
import { cspReportSummary } from '#domain/operator/csp-reports.server.ts'
import { pageBuild } from '#tests/helpers/page-build.ts'
import { httpClient, startWebServer } from '#tests/helpers/web-server.ts'

// The headers every answer carries and the pages' per-request CSP nonce (decision 0020), over real
// HTTP through server/app.ts, with the real entry.server and root rendering a real page.

const pages = () =>
  pageBuild({
    'routes/contact': { path: 'contact', module: contactPage },
    'routes/auth.callback': { path: 'auth/callback', module: authCallback },
    'routes/media.$': { path: 'media/*', module: mediaRoute },
    'routes/csp-report': { path: 'csp-report', module: cspReportRoute },
  })

const baseHeaders = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
}

function expectBaseHeaders(response: Response) {
  for (const [name, value] of Object.entries(baseHeaders)) expect(response.headers.get(name), name).toBe(value)
  const permissions = response.headers.get('permissions-policy') ?? ''
  for (const feature of ['camera', 'microphone', 'geolocation', 'payment'])
    expect(permissions).toContain(`${feature}=()`)
  expect(response.headers.get('x-powered-by')).toBeNull()
}

const nonceOf = (policy: string) => /'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)?.[1]

let server: Awaited<ReturnType<typeof startWebServer>>
beforeAll(async () => {
  server = await startWebServer({}, undefined, await pages())
})
afterAll(() => server.close())

describe('every answer', () => {
  test('a page: the base headers and a policy with a fresh nonce its scripts carry, never cached', async () => {
    const first = await fetch(`${server.origin}/contact`)
    const html = await first.text()
    expect(first.status).toBe(200)
    expect(first.headers.get('content-type')).toMatch(/^text\/html/)
    expectBaseHeaders(first)
    expect(first.headers.get('cache-control')).toBe('no-store')
    expect(first.headers.get('strict-transport-security')).toBeNull()
    // On http Chromium would send nothing with report-to named: report-uri only (decision 0020).
    expect(first.headers.get('reporting-endpoints')).toBeNull()

    const policy = first.headers.get('content-security-policy') ?? ''
    const nonce = nonceOf(policy)
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/)
    expect(policy).toContain(`script-src 'self' 'nonce-${nonce}'`)
    expect(policy).not.toMatch(/'unsafe-(inline|eval|hashes)'/)
    for (const directive of [
      "object-src 'none'",
      "base-uri 'self'",
      "frame-ancestors 'none'",
      "form-action 'self' https://accounts.google.com",
      "img-src 'self' data: blob:",
      "media-src 'self' blob:",
      "connect-src 'self'",
      'report-uri /csp-report',
    ]) {
      expect(policy).toContain(directive)
    }
    expect(policy).not.toContain('report-to')
    // Every inline and external script of the page carries the nonce; data (JSON-LD, and Remix's
    // module script kept inert until after the first paint) does not run and needs none.
    const scripts = html.match(/<script\b[^>]*>/g) ?? []
    const executable = scripts.filter((tag) => !/type="(application\/ld\+json|text\/x-remix-module)"/.test(tag))
    expect(executable.length).toBeGreaterThan(0)
    for (const tag of executable) expect(tag).toContain(`nonce="${nonce}"`)

    const second = await fetch(`${server.origin}/contact`)
    await second.text()
    const secondNonce = nonceOf(second.headers.get('content-security-policy') ?? '')
    expect(secondNonce).toBeDefined()
    expect(secondNonce).not.toBe(nonce)
  })

  test("a page's own Referrer-Policy replaces the default: the sign-in callback with a token in its address", async () => {
    const response = await fetch(`${server.origin}/auth/callback?token=secret`)
    expect(response.status).toBe(200)
    expect(response.headers.get('referrer-policy')).toBe('no-referrer')
    expect(response.headers.get('content-security-policy')).toContain("'nonce-")
  })

  test('an /api answer, a media answer and a static file: the base headers and a policy that allows nothing, no nonce', async () => {
    const bytes = Buffer.from('not really a png')
    const key = mediaKey('tests/headers', bytes, 'png')
    await getStorage().put(key, bytes, 'image/png')
    const answers = {
      api: await fetch(`${server.origin}/api/image/styles`),
      media: await fetch(`${server.origin}/media/${key}`),
      asset: await fetch(`${server.origin}/favicon.svg`),
    }
    expect(answers.api.status).toBe(200)
    expect(answers.media.status).toBe(200)
    expect(answers.asset.status).toBe(200)
    // The two cached answers: a nonce in them could be replayed from a cache.
    expect(answers.media.headers.get('cache-control')).toMatch(/public/)
    expect(answers.asset.headers.get('cache-control')).toMatch(/public/)
    for (const [name, response] of Object.entries(answers)) {
      expectBaseHeaders(response)
      const policy = response.headers.get('content-security-policy') ?? ''
      expect(policy, name).toContain("default-src 'none'")
      expect(policy, name).toContain("frame-ancestors 'none'")
      expect(policy, name).not.toContain('nonce-')
    }
  })

  test('on https: HSTS for a year with subdomains, and reports through the Reporting API too', async () => {
    const https = await startWebServer({ PUBLIC_URL: 'https://pawtrait.example' }, undefined, await pages())
    try {
      for (const path of ['/contact', '/api/image/styles']) {
        const response = await fetch(`${https.origin}${path}`)
        expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains')
        expect(response.headers.get('reporting-endpoints')).toBe('csp-endpoint="/csp-report"')
        const policy = response.headers.get('content-security-policy')
        expect(policy).toContain('report-uri /csp-report;report-to csp-endpoint')
      }
      const page = await fetch(`${https.origin}/contact`)
      expect(page.headers.get('content-security-policy')).toContain('upgrade-insecure-requests')
    } finally {
      await https.close()
    }
  })

  test('CSP_REPORT_ONLY=on sends the same policy as report-only', async () => {
    const reportOnly = await startWebServer({ CSP_REPORT_ONLY: 'on' }, undefined, await pages())
    try {
      const response = await fetch(`${reportOnly.origin}/contact`)
      expect(response.headers.get('content-security-policy')).toBeNull()
      expect(response.headers.get('content-security-policy-report-only')).toContain("script-src 'self' 'nonce-")
    } finally {
      await reportOnly.close()
    }
  })
})

describe('POST /csp-report', () => {
  let reports: Awaited<ReturnType<typeof startWebServer>>
  beforeAll(async () => {
    reports = await startWebServer({}, { logger: getLogger(), metrics: getMetrics() }, await pages())
  })
  afterAll(() => reports.close())

  const violations = async (directive: string) =>
    (await getMetrics().cspViolations.get()).values.find((value) => value.labels.directive === directive)?.value ?? 0
  const post = (body: string, contentType: string, headers: Record<string, string> = {}) =>
    fetch(`${reports.origin}/csp-report`, {
      method: 'POST',
      body,
      headers: { 'content-type': contentType, ...headers },
    })

  test('a report-uri report, even from another site without cookies: logged, counted, kept and summarised', async () => {
    const warn = vi.spyOn(getLogger(), 'warn')
    const before = await violations('script-src-elem')
    const report = {
      'csp-report': {
        'document-uri': 'http://localhost/generate',
        'blocked-uri': 'https://evil.example/x.js',
        'effective-directive': 'script-src-elem',
        'violated-directive': 'script-src-elem',
        disposition: 'enforce',
      },
    }
    const response = await post(JSON.stringify(report), 'application/csp-report', {
      origin: 'https://evil.example',
      'sec-fetch-site': 'cross-site',
    })
    expect(response.status).toBe(204)
    expect(await violations('script-src-elem')).toBe(before + 1)
    expect(warn).toHaveBeenCalledWith(
      {
        cspViolation: {
          page: '/generate',
          blockedUrl: 'https://evil.example',
          directive: 'script-src-elem',
          disposition: 'enforce',
          count: 1,
        },
      },
      expect.stringContaining('CSP violation'),
    )
    warn.mockRestore()
    const summary = await cspReportSummary(getDb())
    expect(summary.lastDay).toBeGreaterThanOrEqual(1)
    expect(summary.recent[0]).toMatchObject({ page: '/generate', directive: 'script-src-elem', count: 1 })
  })

  test('a Reporting API batch: only its CSP violations are kept', async () => {
    const before = await violations('img-src')
    const { count } = await getDb()
      .selectFrom('csp_reports')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .executeTakeFirstOrThrow()
    const batch = [
      {
        type: 'csp-violation',
        url: 'http://localhost/history',
        body: {
          documentURL: 'http://localhost/history',
          blockedURL: 'https://tracker.example/pixel.gif',
          effectiveDirective: 'img-src',
          disposition: 'report',
        },
      },
      { type: 'deprecation', url: 'http://localhost/', body: { id: 'x', message: 'old API' } },
    ]
    expect((await post(JSON.stringify(batch), 'application/reports+json')).status).toBe(204)
    expect(await violations('img-src')).toBe(before + 1)
    const rows = await getDb().selectFrom('csp_reports').selectAll().orderBy('id', 'desc').execute()
    expect(rows.length).toBe(Number(count) + 1)
    expect(rows[0]).toMatchObject({
      page: '/history',
      blocked_url: 'https://tracker.example',
      directive: 'img-src',
      disposition: 'report',
    })
  })

  test('a batch keeps at most 20 violations, and a made-up directive is counted as other', async () => {
    const before = await violations('other')
    const made = (index: number) => ({
      type: 'csp-violation',
      body: {
        documentURL: 'http://localhost/',
        blockedURL: `https://x.example/${index}`,
        effectiveDirective: `made-up-${index}`,
      },
    })
    const batch = Array.from({ length: 30 }, (_, index) => made(index))
    expect((await post(JSON.stringify(batch), 'application/reports+json')).status).toBe(204)
    expect(await violations('other')).toBe(before + 20)
    const labels = (await getMetrics().cspViolations.get()).values.map((value) => value.labels.directive)
    expect(labels.filter((label) => String(label).startsWith('made-up'))).toEqual([])
  })

  test('bad bodies get clear 4xx answers, never a 500', async () => {
    const report = JSON.stringify({ 'csp-report': { 'effective-directive': 'img-src' } })
    expect((await post(report, 'text/plain')).status).toBe(415)
    expect((await post('{not json', 'application/csp-report')).status).toBe(400)
    const huge = JSON.stringify({
      'csp-report': { 'blocked-uri': 'x'.repeat(70_000), 'effective-directive': 'img-src' },
    })
    const tooLarge = await post(huge, 'application/csp-report')
    expect(tooLarge.status).toBe(413)
    expect(await tooLarge.json()).toEqual({ message: 'The request body is too large' })
    expect((await post('"a string"', 'application/reports+json')).status).toBe(400)
    expect((await post('[{"type":"csp-violation"}]', 'application/reports+json')).status).toBe(204)
  })

  test('each address may send 60 reports a minute', async () => {
    const client = httpClient(reports.origin, { localAddress: '127.0.0.21' })
    const report = JSON.stringify({ 'csp-report': { 'effective-directive': 'font-src', 'blocked-uri': 'data' } })
    const send = () =>
      client.fetch('/csp-report', {
        method: 'POST',
        body: report,
        headers: { 'content-type': 'application/csp-report' },
      })
    try {
      for (let sent = 0; sent < 60; sent++) expect((await send()).status).toBe(204)
      expect((await send()).status).toBe(429)
      const other = httpClient(reports.origin, { localAddress: '127.0.0.22' })
      expect(
        (
          await other.fetch('/csp-report', {
            method: 'POST',
            body: report,
            headers: { 'content-type': 'application/csp-report' },
          })
        ).status,
      ).toBe(204)
      await other.close()
    } finally {
      await client.close()
    }
  })
})
