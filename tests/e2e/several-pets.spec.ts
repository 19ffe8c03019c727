import { expect, type Page } from '@playwright/test'
import { newUserContext, petPhoto, reloadUntilCompleted, test } from './support.ts'

// Issue 41: a portrait of two pets with a name on it, made on a phone with JavaScript and without:
// a photo each, the price with the extra pet before paying, the server's preview of the name, the
// titled result beside its plain download, and the name changed later for free.

async function chooseTwoPets(page: Page) {
  await page.getByLabel('Pet photo').setInputFiles(await petPhoto('biscuit.jpg', { coat: '#c08040' }))
  await page.getByText('More pets in this portrait').click()
  await page.getByLabel('Photo of the second pet').setInputFiles(await petPhoto('pepper.jpg', { coat: '#303030' }))
  await page.getByLabel('Name on the portrait (optional)').fill('Biscuit & Pepper')
  await page.getByLabel('An arched title').check()
  await page.getByLabel('Font').selectOption('great-vibes')
}

/** The shown task as its API answers it (the page's session). */
async function shownTask(page: Page) {
  const id = await page.locator('input[name="task"]').first().inputValue()
  const response = await page.request.get(`/api/async-image/task/${id}`)
  return (await response.json()) as { pets?: string[]; images: { url: string; plainUrl?: string }[] }
}

test('two pets with a name, on a phone @phone', async ({ browser }) => {
  const { context } = await newUserContext(browser, { name: 'Owner' })
  const page = await context.newPage()
  await page.goto('/generate')
  await page.getByLabel('Guide mode').check()
  await chooseTwoPets(page)
  // The image cost (2) and one extra pet (1), before paying.
  await expect(page.getByRole('button', { name: 'Generate (3 credits)' })).toBeVisible()
  const preview = page.getByRole('img', { name: 'Preview of the name “Biscuit & Pepper” as it will be set' })
  await expect(preview).toHaveAttribute(
    'src',
    '/api/titles/preview?title=Biscuit+%26+Pepper&style=arch&font=great-vibes',
  )
  await expect.poll(() => preview.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(512)

  await page.getByRole('button', { name: /^Generate/ }).click()
  const sidebar = page.getByRole('complementary', { name: "Today's Tasks" })
  await expect(sidebar.getByRole('listitem').first().getByText('Completed')).toBeVisible({ timeout: 30_000 })
  await sidebar.getByRole('button', { name: 'Close' }).click()
  const portrait = page.getByRole('img', { name: 'Your generated pet portrait' })
  await expect(portrait).toHaveAttribute('src', /-titled-[0-9a-f]{12}\.jpg$/)
  await expect(page.getByRole('link', { name: 'Download without the name' })).toBeVisible()
  const task = await shownTask(page)
  expect(task.pets).toEqual(['Pet 1', 'Pet 2'])
  expect(task.images[0].plainUrl).toMatch(/result\.png$/)

  // The fix asks which pet is off.
  await page.getByText('Doesn’t look like my pet?').or(page.getByText("Doesn't look like my pet?")).click()
  await expect(page.getByLabel('Pet 2')).toBeVisible()
  await context.close()
})

test('two pets with a name, without JavaScript @phone', async ({ browser }) => {
  const { context } = await newUserContext(browser, { javaScriptEnabled: false, name: 'Owner' })
  const page = await context.newPage()
  await page.goto('/generate')
  await page.getByLabel('Guide mode').check()
  await chooseTwoPets(page)
  await expect(page.getByText('Each pet beyond the first adds 1 credit to every version.')).toBeVisible()

  // The preview is the server's drawing of the form's name, in a tab of its own.
  const [tab] = await Promise.all([
    page.waitForEvent('popup'),
    page.getByRole('button', { name: 'Preview the name' }).click(),
  ])
  await expect(tab).toHaveURL(/\/title-preview\?/)
  const drawn = tab.getByRole('img', { name: 'Preview of the name “Biscuit & Pepper” as it will be set' })
  await expect(drawn).toHaveAttribute('src', '/api/titles/preview?title=Biscuit+%26+Pepper&style=arch&font=great-vibes')
  await expect.poll(() => drawn.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(512)
  await tab.close()

  await page.getByRole('button', { name: /^Generate/ }).click()
  await expect(page).toHaveURL(/\/generate\?task=[0-9a-f-]{36}$/)
  await reloadUntilCompleted(page)
  const portrait = page.getByRole('img', { name: 'Your generated pet portrait' })
  await expect(portrait).toHaveAttribute('src', /-titled-[0-9a-f]{12}\.jpg$/)
  const first = await portrait.getAttribute('src')
  await expect(page.getByRole('link', { name: 'Download without the name' })).toBeVisible()
  const credits = page.getByText(/^You have \d+ credits\.$/)
  const before = await credits.textContent()

  // Changed later: free, set again rather than generated again.
  await page.getByText('Change the name on the portrait').click()
  const form = page.locator('.title-form')
  await form.getByLabel('Name on the portrait (optional)').fill('Pepper & Biscuit')
  await form.getByLabel('A small plaque').check()
  await form.getByRole('button', { name: 'Save the name' }).click()
  await expect(portrait).toHaveAttribute('src', /-titled-[0-9a-f]{12}\.jpg$/)
  expect(await portrait.getAttribute('src')).not.toBe(first)
  await expect(credits).toHaveText(before ?? '')
  await context.close()
})
