import AxeBuilder from '@axe-core/playwright'
import { expect, type Page } from '@playwright/test'
import sharp from 'sharp'
import { newUserContext, petPhoto, reloadUntilCompleted, test } from './support.ts'

// Saved pets (issue 31, item 6): save a pet on /pets, pick it in the generator instead of uploading
// again, edit it and delete it, with JavaScript (on a phone too) and without.

/** axe-core's serious and critical findings on the page as it is now. */
async function seriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
}

async function savePet(page: Page, name: string) {
  await page.goto('/pets')
  await page.getByLabel('Name').fill(name)
  await page.getByLabel('Species').fill('dog')
  await page.getByLabel('Breed (optional)').fill('Beagle')
  await page.getByLabel('Colours (optional)').fill('tan and white')
  await page.getByLabel('Markings (optional)').fill('white blaze')
  const front = await petPhoto('front.jpg')
  // A second, different photo (the same bytes twice would be saved once).
  const side = { ...front, name: 'side.jpg', buffer: await sharp(front.buffer).tint('#335577').jpeg().toBuffer() }
  await page.getByLabel(/^Photos/).setInputFiles([front, side])
  await page.getByRole('button', { name: 'Save pet' }).click()
  await expect(page.getByRole('status')).toHaveText('Pet saved')
  const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name }) })
  await expect(card.getByText('Beagle dog')).toBeVisible()
  await expect(card.locator('.pet-photos img')).toHaveCount(2)
  return card
}

test('a saved pet is picked in the generator, edited and deleted @phone', async ({ browser }) => {
  const { context } = await newUserContext(browser, { name: 'Owner' })
  const page = await context.newPage()
  const card = await savePet(page, 'Biscuit')
  expect(await seriousViolations(page)).toEqual([])

  await card.getByRole('link', { name: 'Use in the generator' }).click()
  await expect(page).toHaveURL(/\/generate\?pet=[0-9a-f-]{36}$/)
  await expect(page.getByLabel('Biscuit')).toBeChecked()
  await expect(page.getByLabel('Pet photo')).toBeHidden()
  expect(await seriousViolations(page)).toEqual([])
  await page.getByLabel('Guide mode').check()
  await page.getByRole('button', { name: /^Generate/ }).click()
  const sidebar = page.getByRole('complementary', { name: "Today's Tasks" })
  await expect(sidebar.getByRole('listitem').first().getByText('Completed')).toBeVisible({ timeout: 30_000 })
  await sidebar.getByRole('button', { name: 'Close' }).click()

  // Back to uploading: the photo input returns.
  await page.getByLabel('Upload a new photo').check()
  await expect(page.getByLabel('Pet photo')).toBeAttached()

  await page.goto('/pets')
  await card.getByText('Edit Biscuit').click()
  await card.getByLabel('Name').fill('Biscuit the Brave')
  await card.getByLabel('Remove photo 1').check()
  await card.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByRole('status')).toHaveText('Pet updated')
  const renamed = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Biscuit the Brave' }) })
  await expect(renamed.locator('.pet-photos img')).toHaveCount(1)

  await renamed.getByRole('button', { name: 'Delete Biscuit the Brave' }).click()
  await expect(page.getByRole('status')).toHaveText('Pet deleted')
  await expect(page.getByRole('heading', { name: 'Biscuit the Brave' })).toHaveCount(0)
  await context.close()
})

test('without JavaScript a pet is saved and picked in the generator', async ({ browser }) => {
  const { context } = await newUserContext(browser, { javaScriptEnabled: false, name: 'Owner' })
  const page = await context.newPage()
  await savePet(page, 'Pepper')

  await page.goto('/generate')
  await page.getByLabel('Pepper').check()
  await page.getByLabel('Guide mode').check()
  await page.getByRole('button', { name: /^Generate/ }).click()
  await expect(page).toHaveURL(/\/generate\?task=[0-9a-f-]{36}$/)
  await reloadUntilCompleted(page)

  // "Save this pet" under the result keeps the photo of that generation.
  await page.getByText('Save this pet').click()
  await page.getByLabel("Pet's name").fill('Pepper again')
  await page.getByLabel('Species', { exact: true }).fill('dog')
  await page.getByRole('button', { name: 'Save pet' }).click()
  await expect(page.getByRole('status')).toHaveText('Pet saved')
  const again = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Pepper again' }) })
  await expect(again.locator('.pet-photos img')).toHaveCount(2)

  // A refusal comes back to the form it belongs to.
  await page.goto('/pets')
  await page.getByText('Add a pet').click()
  await page.getByRole('button', { name: 'Save pet' }).click()
  await expect(page.getByText('Please give your pet a name')).toBeVisible()
  await context.close()
})
