import { expect } from '@playwright/test'
import { creditsOf, newUserContext, test } from './support.ts'

// Card payments (decision 0041) against the Stripe fake that tests/e2e/worker-app.ts starts: the Pay by
// card button leaves for the fake's hosted page (a 303 without JavaScript, Remix's redirect with
// it), whose Pay button delivers the signed webhook and sends the buyer back to the credit history.
for (const javaScriptEnabled of [true, false]) {
  test(`pay by card on Stripe's page and land on the credit history with the credits (JavaScript ${javaScriptEnabled ? 'on' : 'off'}) @phone`, async ({
    browser,
  }) => {
    const buyer = await newUserContext(browser, { javaScriptEnabled, name: 'Card' })
    const page = await buyer.context.newPage()
    const start = await creditsOf(buyer.context.request)

    await page.goto('/purchase-credits')
    await expect(page.getByText('Test mode')).toBeVisible()
    await page.getByLabel(/300 credits/).check()
    await page.getByRole('button', { name: 'Pay by card' }).click()

    await expect(page).toHaveURL(/\/c\/pay\/cs_test_/)
    await expect(page.getByText('300 Pawtrait credits × 1')).toBeVisible()
    await page.getByRole('button', { name: 'Pay $15.00 usd' }).click()

    await expect(page).toHaveURL(/\/credit-history\?session_id=cs_test_/)
    await expect(page.getByText('Your card payment went through: 300 credits were added.')).toBeVisible()
    await expect(page.getByRole('cell', { name: 'Card payment: 300 credits' })).toBeVisible()
    await expect(page.getByText(`Current credits: ${start + 300}`)).toBeVisible()
    expect(await creditsOf(buyer.context.request)).toBe(start + 300)
    await buyer.context.close()
  })
}
