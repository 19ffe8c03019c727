import http from 'node:http'
import { type Browser, type BrowserContext, expect } from '@playwright/test'
import { adminContext, newUserContext, signIn, test, unique } from './support.ts'

// The Content-Security-Policy breaks nothing (decision 0020): every page opens for every role, with
// and without JavaScript, without a violation (the support fixture fails the test on any), and the
// server receives no report. The forms, previews, templates and the video player are exercised
// under the same watch by the other specs.

const pages = [
  '/',
  '/inspiration',
  '/contact',
  '/login',
  '/register',
  '/forgot-password',
  '/email-verified',
  '/generate',
  '/generate-video',
  '/history',
  '/profile',
  '/credit-history',
  '/purchase-credits',
  '/update-case',
  '/payment-review',
  '/user-management',
  '/analytics',
  '/system-status',
  '/no-such-page',
]

type Role = 'guest' | 'user' | 'admin' | 'superadmin'

async function contextFor(browser: Browser, role: Role, javaScriptEnabled: boolean): Promise<BrowserContext> {
  if (role === 'guest') return browser.newContext({ javaScriptEnabled })
  if (role === 'user') return (await newUserContext(browser, { javaScriptEnabled, name: 'Policy' })).context
  const context = await browser.newContext({ javaScriptEnabled })
  if (role === 'superadmin') {
    await signIn(context.request)
    return context
  }
  const superadmin = await adminContext(browser)
  const account = { email: `policy-admin-${unique()}@example.com`, password: 'pw-123456', name: 'Policy Admin' }
  const created = await superadmin.request.post('/api/userManagement/users', { data: { ...account, role: 'admin' } })
  expect(created.status()).toBe(201)
  await superadmin.close()
  await signIn(context.request, account)
  return context
}

for (const role of ['guest', 'user', 'admin', 'superadmin'] as const) {
  for (const javaScriptEnabled of [true, false]) {
    test(`every page as ${role} ${javaScriptEnabled ? 'with' : 'without'} JavaScript opens without a CSP violation`, async ({
      browser,
    }) => {
      const context = await contextFor(browser, role, javaScriptEnabled)
      const page = await context.newPage()
      for (const path of pages) {
        const response = await page.goto(path, { waitUntil: javaScriptEnabled ? 'networkidle' : 'load' })
        expect(response?.headers()['content-security-policy'], path).toMatch(/script-src 'self' 'nonce-/)
        if (javaScriptEnabled) {
          // Hydrated: React's scripts ran under the policy.
          await expect.poll(() => page.evaluate(() => Boolean(window.__remixRouter)), { message: path }).toBe(true)
        }
      }
      await context.close()
    })
  }
}

test('Google sign-in leaves for the configured authorization page, which form-action allows', async ({ page, app }) => {
  const fake = new URL(app.googleAuthorizationUrl)
  // A page of its own on Google's port (a route would not see the request: the browser follows the
  // app's redirect there without asking Playwright in the headless shell).
  const google = http.createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Fake Google sign-in</h1>'),
  )
  await new Promise<void>((resolve) => google.listen(Number(fake.port), '127.0.0.1', resolve))
  try {
    const response = await page.goto('/login')
    expect(response?.headers()['content-security-policy']).toContain(`form-action 'self' ${fake.origin}`)
    await page.getByRole('link', { name: 'Sign in with Google' }).click()
    await expect(page.getByRole('heading', { name: 'Fake Google sign-in' })).toBeVisible()
    const url = new URL(page.url())
    expect(url.origin + url.pathname).toBe(app.googleAuthorizationUrl)
    expect(url.searchParams.get('client_id')).toBe('e2e-client.apps.googleusercontent.com')
  } finally {
    await new Promise((resolve) => google.close(resolve))
  }
})

test('the Surprise and PayPal links open their sites in a new tab', async ({ browser }) => {
  const { context } = await newUserContext(browser, { name: 'Links' })
  await context.route(/^https:\/\/(example\.com|paypal\.me)\//, (route) =>
    route.fulfill({ contentType: 'text/html', body: '<h1>Elsewhere</h1>' }),
  )
  const page = await context.newPage()
  await page.goto('/')
  const surprise = context.waitForEvent('page')
  await page.getByRole('link', { name: 'Surprise' }).click()
  expect((await surprise).url()).toBe('https://example.com/surprise')
  await page.goto('/purchase-credits')
  await page.getByLabel(/PayPal/).check()
  const paypal = context.waitForEvent('page')
  await page.getByRole('link', { name: 'https://paypal.me/pawtrait' }).click()
  expect((await paypal).url()).toBe('https://paypal.me/pawtrait')
  await context.close()
})

// Chromium sends report-uri reports at once (on http no report-to is named, decision 0020): by now
// any violation of the tests above would have reached the server.
test('the server received no CSP report: the status page says so', async ({ browser }) => {
  const context = await adminContext(browser)
  const page = await context.newPage()
  await page.goto('/system-status')
  await expect(page.getByText('0 reported in the last day.')).toBeVisible()
  await context.close()
})

test('the control: an injected inline script is blocked, reported and shown on the status page', async ({
  page,
  browser,
  cspViolations,
}) => {
  // The page's query string holds a token, as links in emails do: the status page must not show it.
  const secret = `csp-control-${unique()}`
  await page.goto(`/contact?token=${secret}`)
  await page.evaluate(() => {
    const script = document.createElement('script')
    script.textContent = 'document.title = "injected"'
    document.body.append(script)
  })
  await expect.poll(() => cspViolations.length).toBeGreaterThan(0)
  expect(await page.title()).not.toBe('injected')
  // Expected here: the fixture's check is for unexpected violations.
  cspViolations.length = 0

  const context = await adminContext(browser)
  const status = await context.newPage()
  await expect(async () => {
    await status.goto('/system-status')
    const row = status.getByRole('row').filter({ hasText: '/contact' })
    await expect(row).toContainText('script-src-elem', { timeout: 500 })
    await expect(row).toContainText('inline')
  }).toPass({ timeout: 15_000 })
  expect(await status.content()).not.toContain(secret)
  await expect(status.getByText(/^[1-9]\d* reported in the last day\.$/)).toBeVisible()
  await context.close()
})
