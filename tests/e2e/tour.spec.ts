import { expect } from '@playwright/test'
import { adminContext, petPhoto, unique, test } from './support.ts'

// The whole product as a new customer takes it, on desktop and (with @phone) on a phone-sized
// screen: register, generate two versions, watch the task complete, download, pick a favourite,
// download all as a zip, re-roll it, send a likeness fix, buy credits, have the proof approved by a
// super administrator, see the credits arrive.

test('a new customer registers, generates a portrait, buys credits and sees them arrive @phone', async ({
  page,
  browser,
}) => {
  const id = unique()
  const account = { name: `Tour ${id}`, email: `tour-${id}@example.com`, password: 'tour-password' }
  const credits = page.locator('.floating-credits')

  await page.goto('/')
  await expect(page.locator('.gallery-card').first()).toBeVisible()
  await page.goto('/register')
  await page.getByLabel('Username').fill(account.name)
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password', { exact: true }).fill(account.password)
  await page.getByLabel('Confirm password').fill(account.password)
  await page.getByRole('button', { name: 'Register', exact: true }).click()
  await expect(page).toHaveURL('/')
  await expect(credits).toContainText('10')

  await page.goto('/generate')
  // A photo too small to work is refused beside it as soon as it is chosen; a good one is accepted.
  await page.getByLabel('Pet photo').setInputFiles(await petPhoto('small.jpg', { width: 400 }))
  await expect(page.getByRole('alert').filter({ hasText: 'This photo is too small' })).toBeVisible()
  await page.getByLabel('Pet photo').setInputFiles(await petPhoto())
  await expect(page.getByText('Your photo looks good.')).toBeVisible()
  await page.getByLabel('Guide mode').check()
  await page.getByLabel('Background').fill('snowy mountains')
  // Two versions: the price shown before submitting is twice the image cost.
  await page.getByLabel('Versions').selectOption('2')
  await page.getByRole('button', { name: 'Generate (4 credits)' }).click()
  const sidebar = page.getByRole('complementary', { name: "Today's Tasks" })
  const task = sidebar.getByRole('listitem').first()
  await expect(task.getByText('Completed')).toBeVisible({ timeout: 30_000 })
  await expect(credits).toContainText('6')
  const downloading = page.waitForEvent('download')
  await task.getByRole('link', { name: 'Download' }).click()
  expect((await downloading).suggestedFilename()).toMatch(/^pet-portrait-/)
  await sidebar.getByRole('button', { name: 'Close' }).click()

  // Both versions are shown with a zip of all; the second becomes the favourite.
  const result = page.locator('.generate-result')
  await expect(result.getByText('Version 1 · Favourite')).toBeVisible()
  const zipping = page.waitForEvent('download')
  await result.getByRole('link', { name: 'Download all (2 versions, zip)' }).click()
  expect((await zipping).suggestedFilename()).toMatch(/^pet-portrait-.*\.zip$/)
  await result.getByRole('button', { name: 'Make favourite' }).click()
  await expect(result.getByText('Version 2 · Favourite')).toBeVisible()

  // Re-roll the portrait (one version's cost), then say what is off and get the free likeness fix.
  await result.getByRole('button', { name: 'Re-roll (2 credits)' }).click()
  await expect(page).toHaveURL(/\/generate\?task=/)
  await expect(result.getByText('Made from')).toBeVisible()
  await expect(result.locator('.generate-status')).toHaveText('Completed', { timeout: 30_000 })
  await expect(credits).toContainText('4')
  await result.getByText("Doesn't look like my pet?").click()
  await result.getByLabel('Ears').check()
  await result.getByLabel('Markings').check()
  await result.getByLabel('Anything else? (optional)').fill('Her left ear folds over')
  await expect(result.getByText('This fix is free')).toBeVisible()
  await result.getByRole('button', { name: 'Fix the likeness' }).click()
  await expect(result.locator('.generate-status')).toHaveText('Completed', { timeout: 30_000 })
  await expect(result.getByRole('link', { name: 'an earlier portrait' })).toBeVisible()
  await expect(credits).toContainText('4')

  await credits.click()
  await expect(page).toHaveURL('/credit-history')
  await page.goto('/purchase-credits')
  await page.getByLabel(/200 credits/).check()
  await page.getByLabel(/PayPal/).check()
  const transactionId = `TOUR-${id}`
  await page.getByLabel('Transaction ID').fill(transactionId)
  await page.getByRole('button', { name: 'Submit payment proof' }).click()
  await expect(page).toHaveURL(/\/credit-history$/, { timeout: 10_000 })

  const admin = await adminContext(browser)
  const review = await admin.newPage()
  await review.goto('/payment-review')
  const proof = review.getByRole('listitem').filter({ hasText: transactionId })
  await proof.getByRole('button', { name: 'Approve' }).click()
  await expect(review.getByText(/Approved: 200 credits added/)).toBeVisible()
  await admin.close()

  await page.reload()
  await expect(credits).toContainText('204')
  await expect(page.getByRole('cell', { name: 'purchase' }).first()).toBeVisible()
})
