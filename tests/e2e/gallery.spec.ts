import { expect, type Locator, type Page } from '@playwright/test'
import sharp from 'sharp'
import { adminContext, newUserContext, petPhoto, signIn, test } from './support.ts'

// The demo seed: 24 templates, 3 of them in Sports and Travel (scripts/seed/demo-gallery.ts).
const SEEDED = 24

const cards = (page: Page) => page.locator('.masonry figure')

/** True once the image has been downloaded and decoded. */
const loaded = (image: Locator) =>
  image.evaluate((element: HTMLImageElement) => element.complete && element.naturalWidth > 0)

test('the gallery shows the seeded templates with stable, responsive images', async ({ page }) => {
  await page.goto('/')
  await expect(cards(page)).toHaveCount(SEEDED)
  const first = cards(page).first().locator('img')
  await expect(first).toHaveAttribute('srcset', /\.webp 480w, .+\.webp 960w$/)
  await expect(first).toHaveAttribute('loading', 'eager')
  await expect(first).toHaveAttribute('fetchpriority', 'high')
  await expect(cards(page).last().locator('img')).toHaveAttribute('loading', 'lazy')
  // Width and height are given, so the grid keeps its layout while images arrive.
  expect(Number(await first.getAttribute('width'))).toBeGreaterThan(0)
  expect(Number(await first.getAttribute('height'))).toBeGreaterThan(0)
  await expect.poll(() => loaded(first)).toBe(true)
})

test('filtering by style is instant with JavaScript and keeps the URL in step', async ({ page }) => {
  await page.goto('/inspiration')
  await expect(cards(page)).toHaveCount(SEEDED)
  await page.getByRole('link', { name: 'Sports', exact: true }).click()
  await expect(page).toHaveURL(/\/inspiration\?style=sports$/)
  await expect(cards(page)).toHaveCount(3)
  await expect(cards(page).locator('.gallery-card-style')).toHaveText(['Sports', 'Sports', 'Sports'])
  await expect(page.getByRole('link', { name: 'Sports', exact: true })).toHaveAttribute('aria-current', 'page')
  await page.getByRole('link', { name: 'All', exact: true }).click()
  await expect(page).toHaveURL(/\/inspiration$/)
  await expect(cards(page)).toHaveCount(SEEDED)
})

test('without JavaScript the style links filter and Use template leads a guest to /login', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  await page.goto('/')
  await page.getByRole('link', { name: 'Travel', exact: true }).click()
  await expect(page).toHaveURL(/\/\?style=travel$/)
  await expect(cards(page)).toHaveCount(3)
  await cards(page).first().getByRole('link', { name: 'Use template' }).click()
  await expect(page).toHaveURL(/\/login\?redirectTo=/)
  await context.close()
})

test("without JavaScript a signed-in user's Use template leads to the task on /generate, not to JSON", async ({
  browser,
}) => {
  const { context } = await newUserContext(browser, { name: 'NoScript', javaScriptEnabled: false })
  const page = await context.newPage()
  await page.goto('/?style=portrait')
  await cards(page).first().getByRole('link', { name: 'Use template' }).click()
  await page.getByLabel('Your pet photo').setInputFiles(await petPhoto('pet.jpg', { coat: '#40a0c0' }))
  await page.getByRole('button', { name: 'Generate my portrait' }).click()
  await expect(page).toHaveURL(/\/generate\?task=[0-9a-f-]{36}$/)
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
  await context.close()
})

test('a guest clicking Use template is told to log in and sent to /login', async ({ page }) => {
  await page.goto('/')
  const alerts: string[] = []
  page.on('dialog', (dialog) => {
    alerts.push(dialog.message())
    void dialog.accept()
  })
  await cards(page).first().getByRole('link', { name: 'Use template' }).click()
  await expect(page).toHaveURL(/\/login\?redirectTo=/)
  expect(alerts).toEqual(['Please log in first to use templates'])
})

test('a signed-in user applies a template to a photo, or hands it to the generator', async ({ browser }) => {
  const { context } = await newUserContext(browser, { name: 'Gallery' })
  const page = await context.newPage()
  await page.goto('/?style=portrait')
  const card = cards(page).first()
  const name = (await card.locator('.gallery-card-name').textContent()) ?? ''
  await card.getByRole('link', { name: 'Use template' }).click()
  const modal = page.getByRole('dialog', { name: `Use template: ${name}` })
  await expect(modal).toBeVisible()

  await modal.getByLabel('Your pet photo').setInputFiles(await petPhoto('pet.jpg'))
  await expect(modal.getByRole('img', { name: 'Your pet photo' })).toBeVisible()
  // Checked on upload: the answer shows beside the photo.
  await expect(modal.getByText('Your photo looks good.')).toBeVisible()
  await modal.getByRole('button', { name: 'Generate my portrait' }).click()
  await expect(modal.getByText('Your portrait is being generated')).toBeVisible()
  await expect(page.getByRole('complementary', { name: "Today's Tasks" })).toContainText(`Template: ${name}`)

  await page.keyboard.press('Escape')
  await expect(modal).toBeHidden()
  await expect(page).toHaveURL(/\/\?style=portrait$/)

  // /generate reads and removes the hand-off, so record what the modal stores on the way.
  await page.reload() // closes the Today's Tasks sidebar the submission opened
  await card.getByRole('link', { name: 'Use template' }).click()
  await page.evaluate(() => {
    const setItem = Storage.prototype.setItem
    Storage.prototype.setItem = function (key: string, value: string) {
      if (key === 'pawtrait:template') document.documentElement.dataset.handoff = value
      return setItem.call(this, key, value)
    }
  })
  await page.getByRole('link', { name: 'Customize in generator' }).click()
  await expect(page).toHaveURL(/\/generate$/)
  const handoff = JSON.parse((await page.locator('html').getAttribute('data-handoff')) ?? '{}')
  expect(handoff.templateId).toMatch(/^[0-9a-f-]{36}$/)
  expect(handoff.otherParams.templatePrompt).toBeTruthy()
  expect(handoff.prompt).toBe(handoff.otherParams.templatePrompt)
  await context.close()
})

test('an admin creates a style, uploads a template on /update-case, sees it in the gallery and deletes it', async ({
  browser,
}) => {
  const context = await adminContext(browser)
  const page = await context.newPage()
  const suffix = Date.now().toString(36)

  await page.goto('/update-case')
  await page.getByLabel('Style value').fill(`e2e ${suffix}`)
  await page.getByLabel('Style label').fill(`E2E ${suffix}`)
  await page.getByRole('button', { name: 'Create style' }).click()
  await expect(page.getByText(`Style "E2E ${suffix}" (e2e_${suffix}) created.`)).toBeVisible()

  await page.getByRole('button', { name: 'Upload template' }).click()
  await expect(page.getByText('Please upload an image')).toBeVisible()

  const picture = await sharp({ create: { width: 600, height: 800, channels: 3, background: '#3a6ea5' } })
    .png()
    .toBuffer()
  await page.getByLabel('Template image').setInputFiles({ name: 'case.png', mimeType: 'image/png', buffer: picture })
  await page.getByLabel('Style', { exact: true }).selectOption(`e2e_${suffix}`)
  await page.getByLabel('Name (optional)').fill(`Blue ${suffix}`)
  await page.getByLabel('Template prompt').fill('A pet in front of a blue wall')
  await page.getByRole('button', { name: 'Upload template' }).click()
  await expect(page.getByText(`Template "Blue ${suffix}" uploaded successfully.`)).toBeVisible()

  await page.goto('/inspiration')
  await page.getByRole('link', { name: `E2E ${suffix}`, exact: true }).click()
  await expect(cards(page)).toHaveCount(1)
  const card = cards(page).first()
  await expect(card).toContainText(`Blue ${suffix}`)
  const all: { _id: string; name: string }[] = await (await context.request.get('/api/image/all')).json()
  const id = all.find((template) => template.name === `Blue ${suffix}`)?._id
  const image = card.locator('img')
  await expect.poll(() => loaded(image)).toBe(true)
  const thumbnail = (await image.getAttribute('src')) ?? ''
  expect((await context.request.get(thumbnail)).headers()['cache-control']).toContain('immutable')

  await card.getByText('Delete', { exact: true }).click()
  await card.getByRole('button', { name: 'Yes, delete' }).click()
  await expect(cards(page)).toHaveCount(0)
  await expect(page.getByText('No templates in this style yet.')).toBeVisible()
  expect((await context.request.get(thumbnail)).status()).toBe(404)
  const again = await context.request.delete(`/api/image/delete/inspiration/${id}`)
  expect([again.status(), await again.json()]).toEqual([404, { message: 'Image not found' }])
  await context.close()
})

test('a plain user sees Access Denied on /update-case', async ({ browser }) => {
  const { context } = await newUserContext(browser, { name: 'Plain' })
  const page = await context.newPage()
  const response = await page.goto('/update-case')
  expect(response?.status()).toBe(403)
  await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible()
  await context.close()
})

test('the Update Case forms work without JavaScript and show the server messages', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false })
  await signIn(context.request)
  const page = await context.newPage()
  await page.goto('/update-case')
  await page.getByLabel('Style value').fill('nojs')
  await page.getByRole('button', { name: 'Create style' }).click()
  await expect(page.getByText('Please enter both style value and label')).toBeVisible()
  await page.getByLabel('Style value').fill('fashion')
  await page.getByLabel('Style label').fill('Fashion')
  await page.getByRole('button', { name: 'Create style' }).click()
  await expect(page.getByText('Style already exists')).toBeVisible()
  await page.getByRole('button', { name: 'Upload template' }).click()
  await expect(page.getByText('Please upload an image')).toBeVisible()
  await context.close()
})
