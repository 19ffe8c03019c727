import AxeBuilder from '@axe-core/playwright'
import { expect, type Page } from '@playwright/test'
import { adminContext, newUserContext, test } from './support.ts'

// axe-core on every route, as the role that can open it: no serious or critical violation.

async function seriousViolations(page: Page, path: string) {
  const response = await page.goto(path)
  expect(response?.status(), path).toBeLessThan(500)
  await page.waitForLoadState('networkidle')
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${path}: ${violation.id} (${violation.impact}) on ${violation.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    )
}

const guestRoutes = [
  '/',
  '/inspiration',
  '/login',
  '/register',
  '/forgot-password',
  '/contact',
  '/email-verified?status=success',
  '/email-verified?status=error',
  '/auth/callback',
  '/no-such-page',
]
const userRoutes = [
  '/generate',
  '/history',
  '/profile',
  '/pets',
  '/credit-history',
  '/purchase-credits',
  '/generate-video',
  '/update-case',
]
const superadminRoutes = [
  '/generate-video',
  '/update-case',
  '/payment-review',
  '/analytics',
  '/user-management',
  '/system-status',
]

test('guest pages have no serious accessibility violations', async ({ page }) => {
  const found: string[] = []
  for (const path of guestRoutes) found.push(...(await seriousViolations(page, path)))
  expect(found).toEqual([])
})

test('signed-in user pages have no serious accessibility violations', async ({ browser }) => {
  const { context } = await newUserContext(browser, { name: 'Axe' })
  const page = await context.newPage()
  const found: string[] = []
  for (const path of userRoutes) found.push(...(await seriousViolations(page, path)))
  expect(found).toEqual([])
  await context.close()
})

test('super administrator pages have no serious accessibility violations', async ({ browser }) => {
  const context = await adminContext(browser)
  const page = await context.newPage()
  const found: string[] = []
  for (const path of superadminRoutes) found.push(...(await seriousViolations(page, path)))
  expect(found).toEqual([])
  await context.close()
})
