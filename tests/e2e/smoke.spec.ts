import { expect } from '@playwright/test'
import { test } from './support.ts'

test('the home page renders with the header and the health check answers @phone', async ({ page, request }) => {
  await page.goto('/')
  await expect(page.getByRole('link', { name: /Pawtrait/ })).toBeVisible()
  const health = await request.get('/healthz')
  expect(health.status()).toBe(200)
  expect(await health.text()).toBe('ok')
})

test('a cross-site form post carrying the session cookie is refused', async ({ request }) => {
  const response = await request.post('/logout', {
    headers: { Origin: 'https://evil.example', Cookie: 'pawtrait_session=x' },
  })
  expect(response.status()).toBe(403)
})
