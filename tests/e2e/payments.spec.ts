import { expect } from '@playwright/test'
import sharp from 'sharp'
import { adminContext, creditsOf, newUserContext, test } from './support.ts'

test('a user submits a payment proof, the superadmin approves it and the credits rise', async ({ browser }) => {
  const buyer = await newUserContext(browser, { name: 'Buyer' })
  const page = await buyer.context.newPage()
  const startCredits = await creditsOf(buyer.context.request)

  await page.goto('/payment-review')
  await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible()

  await page.goto('/purchase-credits')
  await expect(page.getByText('Payments are reviewed within 24 hours')).toBeVisible()
  await page.getByLabel(/500 credits/).check()
  await expect(page.getByText('Total: 25.00 USD')).toBeVisible()
  await page.getByLabel(/USDT \(ERC20\)/).check()
  // An ERC20 transaction hash: 0x and 64 hex characters (anything else is refused at submission).
  const transactionId = `0x${Date.now().toString(16).padStart(64, 'e')}`
  await page.getByLabel('Transaction ID').fill(transactionId)
  const note = '<img src=x onerror="document.title=\'hacked\'"> <b>paid</b>'
  await page.getByLabel('Note (optional)').fill(note)
  const screenshot = await sharp({ create: { width: 60, height: 40, channels: 3, background: '#1f7a44' } })
    .png()
    .toBuffer()
  await page.getByLabel('Screenshot (optional)').setInputFiles({
    name: 'receipt.png',
    mimeType: 'image/png',
    buffer: screenshot,
  })
  await page.getByRole('button', { name: 'Submit payment proof' }).click()
  await expect(page.getByText('Payment proof submitted successfully')).toBeVisible()
  await expect(page).toHaveURL(/\/credit-history$/, { timeout: 10_000 })

  const admin = await adminContext(browser)
  const adminPage = await admin.newPage()
  await adminPage.goto('/payment-review')
  const card = adminPage.getByRole('listitem').filter({ hasText: transactionId })
  await expect(card).toContainText(buyer.email)
  await expect(card).toContainText('25.00 USD')
  // The note is shown as text: its markup is neither rendered nor run.
  await expect(card.getByText(note)).toBeVisible()
  await expect(adminPage).not.toHaveTitle('hacked')
  // A short-lived signed URL (decision 0027), kept only by this browser.
  const link = card.getByRole('link', { name: /Payment screenshot/ })
  await expect(link).toHaveAttribute('href', /^\/payment-screenshots\/[0-9a-f-]{36}\?expires=\d+&signature=[\w-]+$/)
  const thumbnail = card.getByRole('img', { name: /Payment screenshot/ })
  await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(60)
  const served = await adminPage.request.get((await link.getAttribute('href')) ?? '')
  expect(served.status()).toBe(200)
  expect(served.headers()['cache-control']).toMatch(/^private, max-age=\d+$/)
  // A tampered signature is refused.
  const tampered = (await link.getAttribute('href'))?.replace(/signature=.*/, 'signature=forged') ?? ''
  expect((await buyer.context.request.get(tampered)).status()).toBe(403)

  // The on-chain check: e2e points the chain APIs at a closed port, so it is unavailable, and the
  // reviewer can ask for a fresh check.
  await expect(card.getByText('Check unavailable')).toBeVisible()
  await card.getByRole('button', { name: 'Check again' }).click()
  await expect(adminPage.getByText(/A fresh on-chain check has been queued/)).toBeVisible()

  await card.getByRole('button', { name: 'Approve' }).click()
  await expect(adminPage.getByText(`Approved: 500 credits added to ${buyer.name}'s account.`)).toBeVisible()
  await expect(adminPage.getByRole('listitem').filter({ hasText: transactionId })).toHaveCount(0)

  expect(await creditsOf(buyer.context.request)).toBe(startCredits + 500)
  await page.goto('/purchase-credits')
  await expect(page.getByText(`${startCredits + 500} credits`).first()).toBeVisible()

  await admin.close()
  await buyer.context.close()
})

test('the purchase form works with JavaScript turned off', async ({ browser }) => {
  const buyer = await newUserContext(browser, { javaScriptEnabled: false, name: 'Buyer' })
  const page = await buyer.context.newPage()
  await page.goto('/purchase-credits')

  await page.getByLabel('Custom', { exact: true }).check()
  await page.getByLabel(/Custom amount/).fill('250')
  await page.getByLabel('Transaction ID').fill('not-a-hash')
  await page.getByRole('button', { name: 'Submit payment proof' }).click()
  await expect(page.getByText('A USDT (TRC20) transaction ID is 64 hexadecimal characters')).toBeVisible()
  await expect(page.getByText('Credit amount must be a multiple of 100')).toBeVisible()

  await page.getByLabel('Transaction ID').fill(Date.now().toString(16).padStart(64, 'f'))
  await page.getByLabel(/Custom amount/).fill('1500')
  await page.getByRole('button', { name: 'Submit payment proof' }).click()
  await expect(page.getByText('Payment proof submitted successfully')).toBeVisible()
  await expect(page).toHaveURL(/\/credit-history$/, { timeout: 10_000 })

  await buyer.context.close()
})
