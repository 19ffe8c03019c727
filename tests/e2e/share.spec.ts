import { expect } from '@playwright/test'
import { newUserContext, petPhoto, test, unique } from './support.ts'

// Share pages (issue 32, item 4): share a finished portrait from /history, open its page as a
// guest, and "Make one of my pet" registers the guest and brings them back to the generator with
// the style chosen (decision 0037).

test('share from /history, open the page as a guest, make one of my pet after registering @phone', async ({
  browser,
}) => {
  const { context } = await newUserContext(browser, { name: 'Sharer' })
  const page = await context.newPage()
  await page.goto('/generate')
  await page.getByLabel('Pet photo').setInputFiles(await petPhoto())
  await page.getByLabel('Guide mode').check()
  await page.getByRole('button', { name: /^Generate/ }).click()
  const sidebar = page.getByRole('complementary', { name: "Today's Tasks" })
  await expect(sidebar.getByRole('listitem').first().getByText('Completed')).toBeVisible({ timeout: 30_000 })

  await page.goto('/history')
  await page.getByRole('button', { name: 'Share', exact: true }).first().click()
  await expect(page).toHaveURL(/\/shares\?made=/)
  const link = page.getByRole('link', { name: /^\/p\// }).first()
  const path = (await link.getAttribute('href')) ?? ''
  expect(path).toMatch(/^\/p\/[A-Za-z0-9_-]{22}$/)

  const guest = await browser.newContext()
  const visitor = await guest.newPage()
  await visitor.goto(path)
  await expect(visitor.getByRole('heading', { name: 'A pet portrait in General' })).toBeVisible()
  await expect(visitor.locator('meta[name="robots"]')).toHaveAttribute('content', 'noindex')
  await expect(visitor.locator('meta[property="og:image"]')).toHaveAttribute('content', /^https?:\/\/.+\/card\.jpg$/)
  await expect(visitor.getByText(/available until/)).toBeVisible()
  await expect(visitor.getByRole('img', { name: /A pet portrait/ })).toBeVisible()

  await visitor.getByRole('link', { name: 'Make one of my pet' }).click()
  await expect(visitor).toHaveURL(/\/register\?redirectTo=/)
  const id = unique()
  await visitor.getByLabel('Username').fill(`Friend ${id}`)
  await visitor.getByLabel('Email').fill(`friend-${id}@example.com`)
  await visitor.getByLabel('Password', { exact: true }).fill('pw-123456')
  await visitor.getByLabel('Confirm password').fill('pw-123456')
  await visitor.getByRole('button', { name: 'Register' }).click()
  await expect(visitor).toHaveURL(/\/generate\?style=general$/)
  await expect(visitor.getByLabel('General')).toBeChecked()

  // Unshared: the page is gone for everyone at once.
  const unshared = page.waitForResponse(
    (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/shares',
  )
  await page.getByRole('button', { name: 'Unshare' }).first().click()
  await unshared
  expect((await guest.request.get(path)).status()).toBe(404)
  await guest.close()
})
