import { expect } from '@playwright/test'
import { startProdigiFake, type ProdigiFake } from '../fakes/prodigi.ts'
import { scaledCatalogue } from '../helpers/prints.ts'
import { adminContext, newUserContext, petPhoto, test } from './support.ts'

// Issue 39: order a canvas of a finished portrait on a phone, see its mockup and price, find it on
// /orders, then its tracking link once the (fake) print lab ships it. The lab is the Prodigi fake,
// with print areas small enough for the offline renderer's portraits.

let fake: ProdigiFake

test.beforeAll(async ({ app }) => {
  fake = await startProdigiFake({ ...app.prodigi, catalogue: scaledCatalogue(16) })
})

test.afterAll(async () => {
  await fake.close()
})

test('order a canvas on a phone: mockup, price, the order on /orders, then its tracking @phone', async ({
  browser,
}) => {
  const { context } = await newUserContext(browser, { name: 'Printer' })
  const page = await context.newPage()
  const me = await (await page.request.get('/api/auth/me')).json()
  const admin = await adminContext(browser)
  expect(
    (await admin.request.put(`/api/userManagement/users/${me.user.id}/credits`, { data: { credits: 5000 } })).ok(),
  ).toBe(true)
  await admin.close()

  await page.goto('/generate')
  await page.getByLabel('Pet photo').setInputFiles(await petPhoto())
  await page.getByLabel('Guide mode').check()
  await page.getByRole('button', { name: /^Generate/ }).click()
  const sidebar = page.getByRole('complementary', { name: "Today's Tasks" })
  await expect(sidebar.getByRole('listitem').first().getByText('Completed')).toBeVisible({ timeout: 30_000 })

  await page.goto('/history')
  await page.getByRole('link', { name: 'Order a print' }).first().click()
  await expect(page.getByRole('heading', { name: 'Order a print' })).toBeVisible()
  await page.getByLabel('Canvas 8×10 in').check()
  await page.getByLabel(/Wrap \(canvas\)/).selectOption('wrap:ImageWrap')
  await page.getByLabel('Deliver to').selectOption('GB')
  await page.getByRole('button', { name: 'See the price and preview' }).click()

  const mockup = page.getByRole('img', { name: 'Preview of the Canvas 8×10 in' })
  await expect(mockup).toBeVisible()
  expect(await mockup.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100)
  const price = page.locator('.print-price')
  await expect(price).toContainText(/\d+ credits/)
  const credits = Number(await price.getAttribute('data-credits'))
  expect(credits).toBeGreaterThan(0)
  await expect(page.getByText(/Delivery estimate: about/)).toBeVisible()

  const balance = (await (await page.request.get('/api/auth/me')).json()).user.credits as number
  await page.getByLabel('Recipient name').fill('Ada Lovelace')
  await page.getByLabel('Email').fill('ada@example.com')
  await page.getByLabel('Phone').fill('+44 20 7946 0000')
  await page.getByLabel('Address line 1').fill('1 Test Street')
  await page.getByLabel('Town or city').fill('London')
  await page.getByLabel('Postcode').fill('SW1A 1AA')
  await page.getByRole('button', { name: `Order for ${credits} credits` }).click()

  await expect(page).toHaveURL(/\/orders\?placed=1$/)
  const order = page.locator('.print-order').first()
  await expect(order.getByRole('heading', { name: 'Canvas 8×10 in' })).toBeVisible()
  await expect(order.getByRole('img', { name: /Preview of the Canvas/ })).toBeVisible()
  expect((await (await page.request.get('/api/auth/me')).json()).user.credits).toBe(balance - credits)

  // The worker sends it; the lab downloads the print file, then ships it.
  const orderId = (await order.getAttribute('data-order')) ?? ''
  const labOrder = await expect
    .poll(() => [...fake.orders.values()].find((o) => o.merchantReference === orderId)?.id, { timeout: 30_000 })
    .toBeTruthy()
    .then(() => [...fake.orders.values()].find((o) => o.merchantReference === orderId)!)
  await fake.idle()
  expect(fake.assetChecks.find((c) => c.orderId === labOrder.id)?.problem).toBeNull()
  await fake.advance(labOrder.id, 'shipped')
  await fake.idle()
  const tracking = labOrder.shipments[0]!.tracking!
  await expect(async () => {
    await page.reload()
    await expect(
      page
        .locator('.print-order')
        .first()
        .getByRole('link', { name: `Track ${tracking.number}` }),
    ).toHaveAttribute('href', tracking.url, { timeout: 1000 })
  }).toPass({ timeout: 30_000 })
  await expect(page.locator('.print-order').first().locator('.print-status')).toHaveText('Shipped')
})
