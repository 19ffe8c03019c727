import { expect, type Page } from '@playwright/test'
import { unzipSync } from 'fflate'
import { newUserContext, test } from './support.ts'

// The user's own data (issue 32, item 6): "Download my data" and "Delete my account" on /profile,
// with JavaScript (on a phone too) and without.

/** Asks for the export, then reloads /profile until the worker's link is there; answers the zip's file names. */
async function downloadMyData(page: Page) {
  await page.goto('/profile')
  await page.getByRole('button', { name: 'Download my data' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Your data export is being made' }).first()).toBeVisible()
  const link = page.getByRole('link', { name: 'Download my data (zip)' })
  await expect(async () => {
    await page.reload()
    await expect(link).toBeVisible({ timeout: 1000 })
  }).toPass({ timeout: 30_000 })
  const response = await page.request.get((await link.getAttribute('href'))!)
  expect(response.status()).toBe(200)
  expect(response.headers()['cache-control']).toMatch(/^private/)
  return Object.keys(unzipSync(new Uint8Array(await response.body())))
}

async function deleteMyAccount(page: Page, password: string) {
  await page.goto('/profile')
  const form = page.getByRole('region', { name: 'Delete my account' })
  await form.getByLabel('Your password').fill('not-my-password')
  await form.getByLabel('Type DELETE to confirm').fill('DELETE')
  await form.getByRole('button', { name: 'Delete my account' }).click()
  await expect(page.getByRole('alert').filter({ hasText: 'Wrong password' })).toBeVisible()
  await form.getByLabel('Your password').fill(password)
  await form.getByLabel('Type DELETE to confirm').fill('DELETE')
  await form.getByRole('button', { name: 'Delete my account' }).click()
  await expect(page).toHaveURL(/\/\?deleted=account$/)
  await expect(page.getByText('Your account and its data have been deleted')).toBeVisible()
  await page.goto('/profile')
  await expect(page).toHaveURL(/\/login/)
}

for (const javaScriptEnabled of [true, false]) {
  test(`download my data, then delete my account (JavaScript ${javaScriptEnabled ? 'on' : 'off'}) @phone`, async ({
    browser,
  }) => {
    const { context, password } = await newUserContext(browser, { javaScriptEnabled, name: 'Leaver' })
    const page = await context.newPage()
    const names = await downloadMyData(page)
    expect(names).toEqual(
      expect.arrayContaining(['profile.json', 'credit-ledger.csv', 'tasks.json', 'pets.json', 'payment-proofs.json']),
    )
    await deleteMyAccount(page, password)
    await context.close()
  })
}
