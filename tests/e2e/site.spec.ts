import { expect } from '@playwright/test'
import { newUserContext, test, waitForHydration } from './support.ts'

test('contact page has its own title, description and ContactPage data', async ({ page }) => {
  await page.goto('/contact')
  await expect(page).toHaveTitle('Contact us | Pawtrait')
  await expect(page.locator('meta[name="description"]')).toHaveAttribute('content', /Reach the Pawtrait team/)
  const jsonLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}')
  expect(jsonLd['@type']).toBe('ContactPage')
  await expect(page.getByRole('link', { name: /Email/ })).toHaveAttribute('href', /^mailto:/)
})

test('an unknown address shows the friendly 404 page with the header', async ({ page }) => {
  const response = await page.goto('/no-such-page')
  expect(response?.status()).toBe(404)
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible()
  await expect(page.getByRole('link', { name: /Pawtrait/ }).first()).toBeVisible()
})

test('robots.txt and sitemap.xml point at the public pages', async ({ request }) => {
  const robots = await (await request.get('/robots.txt')).text()
  expect(robots).toMatch(/Sitemap: http:\/\/localhost:\d+\/sitemap\.xml/)
  expect(robots).toContain('Disallow: /api/')
  // Administrators' pages answer crawlers with a redirect to /login; listing them would advertise them.
  expect(robots).not.toMatch(/payment-review|user-management|analytics/)
  const sitemap = await request.get('/sitemap.xml')
  expect(sitemap.headers()['content-type']).toContain('application/xml')
  expect(await sitemap.text()).toContain('/generate</loc>')
})

test('the header menus work with the keyboard and without JavaScript', async ({ browser }) => {
  for (const javaScriptEnabled of [true, false]) {
    const { context, name } = await newUserContext(browser, { javaScriptEnabled, name: 'Keys' })
    const page = await context.newPage()
    await page.goto('/contact')
    const userMenu = page.locator('summary', { hasText: name })
    await userMenu.focus()
    await page.keyboard.press('Enter')
    const profile = page.getByRole('link', { name: 'Profile' })
    await expect(profile).toBeVisible()
    if (javaScriptEnabled) {
      await page.keyboard.press('Escape')
      await expect(profile).toBeHidden()
      await expect(userMenu).toBeFocused()
    } else {
      await profile.click()
      await expect(page).toHaveURL('/profile')
    }
    await context.close()
  }
})

test('a menu opened before the page hydrates stays open when it does', async ({ browser }) => {
  const { context, name } = await newUserContext(browser, { name: 'Early' })
  const page = await context.newPage()
  let releaseScripts = () => {}
  const scriptsHeld = new Promise<void>((resolve) => (releaseScripts = resolve))
  await page.route(/\/build\/.*\.js$/, async (route) => {
    await scriptsHeld
    await route.continue()
  })
  // Module scripts hold back DOMContentLoaded, so wait for the response only.
  await page.goto('/contact', { waitUntil: 'commit' })
  await page.locator('summary', { hasText: name }).click()
  const profile = page.getByRole('link', { name: 'Profile' })
  await expect(profile).toBeVisible()
  releaseScripts()
  await waitForHydration(page)
  await page.waitForLoadState('networkidle')
  await expect(profile).toBeVisible()
  // Hydrated for real: Escape (a JavaScript handler) now closes it.
  await page.keyboard.press('Escape')
  await expect(profile).toBeHidden()
  await context.close()
})

test('the Surprise button opens its link in a new tab, safely', async ({ page }) => {
  const surprise = page.getByRole('link', { name: /Surprise/ })
  await page.goto('/')
  await expect(surprise).toHaveAttribute('href', 'https://example.com/surprise')
  await expect(surprise).toHaveAttribute('target', '_blank')
  await expect(surprise).toHaveAttribute('rel', /noopener/)
})

test('on a phone the slide-out menu holds Inspiration and the floating button the credits @phone', async ({
  browser,
}) => {
  const { context } = await newUserContext(browser, { name: 'Mobile' })
  const page = await context.newPage()
  await page.setViewportSize({ width: 390, height: 800 })
  await page.goto('/contact')
  await page.getByLabel('Open menu').click()
  await page.getByRole('navigation', { name: 'Mobile' }).getByRole('link', { name: 'Inspiration' }).click()
  await expect(page).toHaveURL('/inspiration')
  await expect(page.getByRole('navigation', { name: 'Mobile' })).toBeHidden()
  await page.getByRole('link', { name: /credits: credit history/ }).click()
  await expect(page).toHaveURL('/credit-history')
  await context.close()
})

test('/, /inspiration and /generate carry their own title, keywords and structured data', async ({ page }) => {
  const expectations = [
    { path: '/', type: 'WebSite' },
    { path: '/inspiration', type: 'WebSite' },
    { path: '/generate', type: 'SoftwareApplication' },
  ]
  const titles = new Set<string>()
  for (const { path, type } of expectations) {
    await page.goto(path)
    titles.add(await page.title())
    await expect(page.locator('meta[name="keywords"]')).toHaveAttribute('content', /pet/)
    const jsonLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}')
    expect(jsonLd['@type'], path).toBe(type)
  }
  expect(titles.size).toBe(3)
})
