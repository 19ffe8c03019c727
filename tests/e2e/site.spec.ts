import { expect, test } from '@playwright/test'

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
  const robots = await request.get('/robots.txt')
  expect(await robots.text()).toMatch(/Sitemap: http:\/\/localhost:\d+\/sitemap\.xml/)
  const sitemap = await request.get('/sitemap.xml')
  expect(sitemap.headers()['content-type']).toContain('application/xml')
  expect(await sitemap.text()).toContain('/generate</loc>')
})
