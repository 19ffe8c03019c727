import {
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  expect,
  type Page,
  test as base,
} from '@playwright/test'
import { drawnPetPhoto, type DrawnPetOptions } from '#tests/helpers/pet-photos.ts'
import { e2eAdmin, startWorkerApp, type WorkerApp } from './worker-app.ts'

let counter = 0

/** A unique suffix for emails and names across tests and runs. */
export const unique = () => `${Date.now()}-${++counter}-${Math.floor(Math.random() * 1e4)}`

/** A browser context signed in as a new user with the registration bonus (registered through the API, which also sets the page cookie). */
export async function newUserContext(browser: Browser, options: { javaScriptEnabled?: boolean; name?: string } = {}) {
  const { name = 'Tester', ...contextOptions } = options
  const context = await browser.newContext(contextOptions)
  const id = unique()
  const account = { name: `${name} ${id}`, email: `${name.toLowerCase()}-${id}@example.com`, password: 'pw-123456' }
  const response = await context.request.post('/api/auth/register', { data: account })
  expect(response.status()).toBe(201)
  return { context, ...account }
}

/** Signs a request context in (and with it the browser context's cookie jar). */
export async function signIn(request: APIRequestContext, credentials: { email: string; password: string } = e2eAdmin) {
  const response = await request.post('/api/auth/login', { data: credentials })
  expect(response.status()).toBe(200)
}

export async function adminContext(browser: Browser) {
  const context = await browser.newContext()
  await signIn(context.request)
  return context
}

export async function creditsOf(request: APIRequestContext) {
  const me = await (await request.get('/api/auth/me')).json()
  return me.user.credits as number
}

/** Without JavaScript the page shows a task as it stood when loaded: reload until it is completed. */
export async function reloadUntilCompleted(page: Page) {
  await expect(async () => {
    await page.reload()
    await expect(page.getByText('Completed')).toBeVisible({ timeout: 1000 })
  }).toPass({ timeout: 30_000 })
}

/** A real-looking JPEG pet photo (tests/helpers/pet-photos.ts) that passes the photo check, for upload fields. */
export async function petPhoto(name = 'corgi.jpg', options: DrawnPetOptions = {}) {
  return { name, mimeType: 'image/jpeg', buffer: await drawnPetPhoto(options) }
}

/**
 * The app's scripts start after the load event (decision 0021), so goto and reload would return
 * before the page reacts to clicks. With JavaScript on they also wait for hydration, as a user
 * waits for the page, unless the test itself asked for less than the load event.
 */
function hydrateOnNavigation(page: Page) {
  const goto = page.goto.bind(page)
  const reload = page.reload.bind(page)
  const afterLoad = async (waitUntil: string | undefined) => {
    if (waitUntil === 'commit' || waitUntil === 'domcontentloaded') return
    await page.waitForFunction(hydrated, { orNotTheApp: true })
  }
  page.goto = async (url, options) => {
    const response = await goto(url, options)
    await afterLoad(options?.waitUntil)
    return response
  }
  page.reload = async (options) => {
    const response = await reload(options)
    await afterLoad(options?.waitUntil)
    return response
  }
}

/**
 * `app`: this worker's own app and Stripe fake (worker-app.ts), started once for the worker's tests,
 * which take its address as their baseURL.
 *
 * Every test fails on a Content-Security-Policy violation in any of its pages (decision 0020):
 * Chromium's "Refused to …" console messages, and the pages' `securitypolicyviolation` events
 * (the listener is injected by Playwright, which the policy does not govern). The contexts a test
 * opens itself with browser.newContext are watched too, and their pages' navigations wait for
 * hydration (hydrateOnNavigation).
 */
export const test = base.extend<{ cspViolations: string[] }, { app: WorkerApp }>({
  app: [
    // Playwright reads what a fixture needs from its first parameter's pattern: this one needs nothing.
    // eslint-disable-next-line no-empty-pattern
    async ({}, provide, workerInfo) => {
      const started = await startWorkerApp(workerInfo.parallelIndex)
      await provide(started.app)
      await started.stop()
    },
    { scope: 'worker', auto: true, timeout: 180_000 },
  ],
  baseURL: async ({ app }, provide) => provide(app.url),
  cspViolations: [
    async ({ browser, context, javaScriptEnabled }, use) => {
      const violations: string[] = []
      const watchPage = (page: Page, scripts: boolean) => {
        if (scripts) hydrateOnNavigation(page)
        page.on('console', (message) => {
          const text = message.text()
          if (/Content Security Policy|Refused to|securitypolicyviolation/.test(text)) {
            violations.push(`${page.url()}: ${text}`)
          }
        })
      }
      const watch = async (watched: BrowserContext, scripts: boolean) => {
        await watched.addInitScript(() =>
          document.addEventListener('securitypolicyviolation', (event) =>
            console.error(`securitypolicyviolation ${event.effectiveDirective} ${event.blockedURI}`),
          ),
        )
        watched.pages().forEach((page) => watchPage(page, scripts))
        watched.on('page', (page) => watchPage(page, scripts))
      }
      await watch(context, javaScriptEnabled)
      const newContext = browser.newContext.bind(browser)
      browser.newContext = async (options) => {
        const created = await newContext(options)
        await watch(created, options?.javaScriptEnabled ?? true)
        return created
      }
      await use(violations)
      browser.newContext = newContext
      expect(violations, 'Content-Security-Policy violations').toEqual([])
    },
    { auto: true },
  ],
})

/**
 * Runs in the page: whether React has hydrated it (the header's nodes carry fibers; their effects
 * run right after), or, with `orNotTheApp`, whether it has none of the app's scripts to wait for.
 */
function hydrated({ orNotTheApp }: { orNotTheApp: boolean }) {
  if (orNotTheApp && !document.getElementById('remix-module-script')) return true
  return Object.keys(document.querySelector('header') ?? {}).some((key) => key.startsWith('__reactFiber'))
}

export async function waitForHydration(page: Page, options: { timeout?: number } = {}) {
  await page.waitForFunction(hydrated, { orNotTheApp: false }, options)
}
