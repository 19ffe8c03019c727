import { expect, type Page } from '@playwright/test'
import { newUserContext, test, waitForHydration } from './support.ts'

/** Emoji and other pictographs, which show as empty boxes without an emoji font. */
const pictograph = /\p{Extended_Pictographic}/u

const linkedStylesheets = (page: Page) => page.locator('link[rel="stylesheet"]')
const inlinedStyles = (html: string) => html.match(/<style data-href=/g)?.length ?? 0
const stylesheetLinks = (html: string) => html.match(/<link rel="stylesheet"/g)?.length ?? 0

test('the gallery paints without waiting for a stylesheet, and a client-side navigation is styled at once', async ({
  page,
}) => {
  const response = await page.goto('/')
  // A guest's page inlines the guest pages' styles (app, accounts, gallery) and links no stylesheet;
  // the others follow as links once it has hydrated, loaded before signing in leads to their pages.
  const html = (await response?.text()) ?? ''
  expect([inlinedStyles(html), stylesheetLinks(html)]).toEqual([3, 0])
  await expect(page.locator('.masonry')).toHaveCSS('column-count', '4')
  await waitForHydration(page)
  await expect(linkedStylesheets(page)).toHaveCount(10)
  await expect
    .poll(() => linkedStylesheets(page).evaluateAll((links) => links.every((link) => (link as HTMLLinkElement).sheet)))
    .toBe(true)
  // The phone's first screen (at least its two column tops) is preloaded from the head, with the
  // very srcsets its images use, and those images load eagerly.
  const preloads = page.locator('head link[rel="preload"][as="image"]')
  const prioritised = page.locator('.masonry img[fetchpriority="high"]')
  const preloaded = await preloads.evaluateAll((links) => links.map((link) => link.getAttribute('imagesrcset')))
  expect(preloaded.length).toBeGreaterThanOrEqual(2)
  expect(await prioritised.evaluateAll((images) => images.map((image) => image.getAttribute('srcset')))).toEqual(
    preloaded,
  )
  expect(await prioritised.evaluateAll((images) => images.map((image) => image.getAttribute('loading')))).toEqual(
    preloaded.map(() => 'eager'),
  )
  // /login's own rules (accounts.css) apply the moment its page shows, with no stylesheet to fetch.
  const stylesheetRequests: string[] = []
  page.on('request', (request) => {
    if (request.resourceType() === 'stylesheet') stylesheetRequests.push(request.url())
  })
  await page.locator('.header-actions').getByRole('link', { name: 'Login' }).click()
  await expect(page).toHaveURL(/\/login$/)
  await expect(page.locator('.account-links')).toHaveCSS('text-align', 'center')
  expect(stylesheetRequests).toEqual([])
})

test("the generator, the one guest page beyond the gallery's and the account forms', inlines its own styles too", async ({
  page,
}) => {
  const html = (await (await page.goto('/generate'))?.text()) ?? ''
  expect([inlinedStyles(html), stylesheetLinks(html)]).toEqual([5, 0])
  expect(html).toMatch(/<style data-href="[^"]*\/generate-[^"]*\.css"/)
})

test("a signed-in user's page inlines every page's styles, links none and hydrates without errors", async ({
  browser,
}) => {
  const { context } = await newUserContext(browser)
  const page = await context.newPage()
  const consoleErrors: string[] = []
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()))
  const html = (await (await page.goto('/generate'))?.text()) ?? ''
  expect([inlinedStyles(html), stylesheetLinks(html)]).toEqual([13, 0])
  await waitForHydration(page)
  await expect(linkedStylesheets(page)).toHaveCount(0)
  expect(consoleErrors).toEqual([])
  await context.close()
})

test('icons are SVG with no emoji left, for guests and signed-in users', async ({ page, browser }) => {
  for (const path of ['/', '/contact']) {
    await page.goto(path)
    expect(await page.locator('body').innerText()).not.toMatch(pictograph)
  }
  const brand = page.locator('header a.brand')
  await expect(brand).toHaveAccessibleName('Pawtrait')
  await expect(brand.locator('svg[aria-hidden="true"]')).toHaveCount(1)
  await expect(page.locator('.contact-card svg.contact-icon').first()).toBeVisible()

  const { context } = await newUserContext(browser)
  const signedIn = await context.newPage()
  await signedIn.goto('/purchase-credits')
  expect(await signedIn.locator('body').innerText()).not.toMatch(pictograph)
  await expect(signedIn.locator('.credits-menu > summary svg')).toHaveCount(1)
  await expect(signedIn.getByRole('button', { name: "Today's Tasks" }).locator('svg')).toHaveCount(1)
  await context.close()
})

/** When the page's own scripts (/build/*.js) started loading, against its load event and first paint. */
const scriptTiming = (page: Page) =>
  page.evaluate(() => {
    const scripts = performance.getEntriesByType('resource').filter((entry) => /\/build\/.+\.js$/.test(entry.name))
    const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming
    return {
      scripts: scripts.length,
      firstScriptStart: Math.min(...scripts.map((entry) => entry.startTime)),
      loadEnd: navigation.loadEventEnd,
      firstPaint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Infinity,
    }
  })

test('the scripts start after the page has loaded and painted, then hydrate it without errors', async ({ page }) => {
  const consoleErrors: string[] = []
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()))
  for (const path of ['/', '/login']) {
    await page.goto(path)
    await expect(page.locator('link[rel="modulepreload"]')).toHaveCount(0)
    await waitForHydration(page)
    const timing = await scriptTiming(page)
    expect(timing.scripts).toBeGreaterThan(3)
    expect(timing.firstScriptStart).toBeGreaterThanOrEqual(timing.loadEnd)
    expect(timing.firstPaint).toBeLessThan(timing.firstScriptStart)
    // Today's Tasks is only for signed-in users: a guest never loads its chunk.
    const names = await page.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name))
    expect(names.filter((name) => /task-sidebar.*\.js$/.test(name))).toEqual([])
  }
  // React reports a hydration mismatch as a console error (and renders the page again).
  expect(consoleErrors).toEqual([])
})

test('a page whose images never finish loading still hydrates', async ({ page }) => {
  await page.route(/\/media\//, () => {
    // never answered: the load event never comes
  })
  await page.goto('/', { waitUntil: 'domcontentloaded' })
  await waitForHydration(page, { timeout: 10_000 })
  expect((await scriptTiming(page)).loadEnd).toBe(0)
})
