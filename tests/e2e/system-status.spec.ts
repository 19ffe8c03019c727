import { expect } from '@playwright/test'
import { adminContext, newUserContext, test } from './support.ts'

test('the superadmin opens System Status from the menu; it shows the worker and refreshes every 10 s', async ({
  browser,
}) => {
  const context = await adminContext(browser)
  const page = await context.newPage()
  await page.clock.install()
  await page.goto('/')
  await page.locator('.user-menu summary').click()
  await page.locator('.user-menu').getByRole('link', { name: 'System Status' }).click()
  await expect(page.getByRole('heading', { name: 'System Status' })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Workers alive (last minute)' })).toBeVisible()
  await expect(page.getByRole('table').filter({ hasText: 'Image slots' }).getByRole('row')).toHaveCount(2)
  await expect(page.getByRole('row', { name: /^image/ })).toBeVisible()

  const refreshed = page.waitForRequest((request) => request.url().includes('/system-status?_data='))
  await page.clock.fastForward(10_000)
  await refreshed
  await context.close()
})

test('without JavaScript the page renders on the server; a user without the role never sees it', async ({
  browser,
}) => {
  const context = await adminContext(browser)
  const noJs = await browser.newContext({ javaScriptEnabled: false, storageState: await context.storageState() })
  const page = await noJs.newPage()
  await page.goto('/system-status')
  await expect(page.getByRole('heading', { name: 'Most common failure reasons (24 h)' })).toBeVisible()
  // A code just sent fills its mailbox's one-a-minute limit, which the page lists (docs/limits.md).
  const sent = await page.request.post('/api/auth/send-verification-code', {
    data: { email: `status-${Date.now()}@example.com` },
  })
  expect(sent.status()).toBe(200)
  await page.reload()
  await expect(page.getByRole('heading', { name: 'Rate limits' })).toBeVisible()
  await expect(page.getByRole('row', { name: /^send-code:register:minute \d+$/ })).toBeVisible()
  await expect(page.getByText('Storage')).toBeVisible()
  await Promise.all([context.close(), noJs.close()])

  const user = await newUserContext(browser, { name: 'Curious' })
  const userPage = await user.context.newPage()
  await userPage.goto('/system-status')
  await expect(userPage).toHaveURL(/\/$/)
  await expect(userPage.getByRole('link', { name: 'System Status' })).toHaveCount(0)
  await user.context.close()
})
