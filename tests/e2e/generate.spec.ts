import { type Browser, expect } from '@playwright/test'
import { creditsOf, newUserContext, petPhoto as photo, reloadUntilCompleted, test } from './support.ts'

test('a user uploads a photo, generates in Guide mode, sees it complete in the sidebar and downloads it', async ({
  browser,
}) => {
  const { context } = await newUserContext(browser, { name: 'Painter' })
  const page = await context.newPage()
  await page.goto('/generate')
  await expect(page.getByText('The offline renderer is in use')).toBeVisible()

  await page.getByLabel('Pet photo').setInputFiles(await photo())
  await expect(page.getByRole('img', { name: 'Your pet photo' })).toBeVisible()
  await page.getByLabel('Guide mode').check()
  await page.getByLabel('Yes, human-like').check()
  await page.getByLabel('Top').fill('a red hoodie')
  await page.getByLabel(/^Shoes/).fill('sneakers')
  await page.getByLabel('Background').fill('a sunny beach')
  await page.getByRole('button', { name: 'Generate (2 credits)' }).click()

  const sidebar = page.getByRole('complementary', { name: "Today's Tasks" })
  await expect(sidebar).toBeVisible()
  const item = sidebar.getByRole('listitem').first()
  await expect(item).toContainText('Generate pet portrait')
  await expect(item.getByText('Completed')).toBeVisible({ timeout: 30_000 })
  // The credits shown were refreshed after the completion.
  await expect(page.locator('.site-header')).toContainText('8 credits')

  const result = page.getByRole('img', { name: 'Your generated pet portrait' })
  await expect(result).toBeVisible()
  // The small print names who made it (decision 0033): here the offline renderer.
  await expect(page.locator('.generate-result .made-by')).toHaveText('Made by local')
  const downloading = page.waitForEvent('download')
  await item.getByRole('link', { name: 'Download' }).click()
  const download = await downloading
  // The spec's prefix, the task, the day and the version number (decision 0035).
  expect(download.suggestedFilename()).toMatch(/^pet-portrait-[0-9a-f]{8}-\d{4}-\d{2}-\d{2}-1\.png$/)

  // History lists it, with its download.
  await page.goto('/history')
  await expect(page.getByRole('img', { name: 'Generated image' })).toHaveCount(1)
  await context.close()
})

test('HD: the generator prices it before submitting and says how large the result prints @phone', async ({
  browser,
}) => {
  const { context } = await newUserContext(browser, { name: 'Printer' })
  const page = await context.newPage()
  await page.goto('/generate')
  await page.getByLabel('Pet photo').setInputFiles(await photo())
  await page.getByLabel('Background').fill('a sunny beach')
  await page.getByRole('radio', { name: /^HD/ }).check()
  // HD costs twice the image cost a version by default: 4 credits.
  await page.getByRole('button', { name: 'Generate (4 credits)' }).click()
  const result = page.getByRole('img', { name: 'Your generated pet portrait' })
  await expect(result).toBeVisible({ timeout: 60_000 })
  // The offline renderer makes HD at 4096 px: sharp up to 8×10 in at 300 DPI.
  await expect(page.getByText(/Prints sharp up to 8×10 in \(20×25 cm\)/)).toBeVisible()
  await expect(page.getByText('4096×4096 px')).toBeVisible()
  await context.close()
})

/** A new user's 10 credits spent on five portraits. */
async function userWithoutCredits(browser: Browser) {
  const { context } = await newUserContext(browser, { name: 'Painter' })
  for (let i = 0; i < 5; i++) {
    const spent = await context.request.post('/api/async-image/generate', {
      multipart: { images: await photo(), style: 'general' },
    })
    expect(spent.status()).toBe(200)
  }
  return context
}

test('with no credits left the Free Usage Limit Reached modal offers to purchase credits', async ({ browser }) => {
  const context = await userWithoutCredits(browser)
  const page = await context.newPage()
  await page.goto('/generate')
  await page.getByLabel('Pet photo').setInputFiles(await photo())
  await page.getByRole('button', { name: /^Generate/ }).click()

  const modal = page.getByRole('dialog', { name: 'Free Usage Limit Reached' })
  await expect(modal).toBeVisible()
  await expect(modal).toContainText('You need at least 2 credits to generate an image')
  await modal.getByRole('link', { name: 'Purchase Credits' }).click()
  await expect(page).toHaveURL(/\/purchase-credits$/)
  await context.close()
})

test('out of credits, a form the browser posted itself opens the page with the purchase dialog; closed, the next submission opens it again', async ({
  browser,
}) => {
  const context = await userWithoutCredits(browser)
  const page = await context.newPage()
  await page.goto('/generate')
  await page.getByLabel('Pet photo').setInputFiles(await photo())
  // Posted as before the page's JavaScript runs: the action answers 402 with the form's error.
  const form = page.locator('form[enctype="multipart/form-data"]')
  await Promise.all([page.waitForEvent('load'), form.evaluate((element: HTMLFormElement) => element.submit())])
  const modal = page.getByRole('dialog', { name: 'Free Usage Limit Reached' })
  await expect(modal).toHaveCount(1)
  await expect(modal).toContainText('You need at least 2 credits to generate an image')
  await expect(page.getByRole('alert')).toHaveCount(0)

  await modal.getByRole('link', { name: 'Close' }).click()
  await expect(modal).toHaveCount(0)
  // The preview needs the page's JavaScript: once it shows, the next submission goes through a fetcher.
  await page.getByLabel('Pet photo').setInputFiles(await photo())
  await expect(page.getByRole('img', { name: 'Your pet photo' })).toBeVisible()
  const refused = page.waitForResponse(
    (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/generate',
  )
  await page.getByRole('button', { name: /^Generate/ }).click()
  expect((await refused).status()).toBe(402)
  await expect(modal).toHaveCount(1)
  await expect(modal).toContainText('You need at least 2 credits to generate an image')
  await context.close()
})

test('without JavaScript the form still submits and the page shows the task', async ({ browser }) => {
  const { context } = await newUserContext(browser, { javaScriptEnabled: false, name: 'Painter' })
  const page = await context.newPage()
  await page.goto('/generate')
  await page.getByRole('button', { name: /^Generate/ }).click()
  await expect(page.getByText('Please upload a pet photo first')).toBeVisible()

  await page.getByLabel('Pet photo').setInputFiles(await photo())
  await page.getByLabel('Customize mode').check()
  await page.getByLabel('Prompt').fill('A corgi astronaut floating above the moon')
  await page.getByRole('button', { name: /^Generate/ }).click()
  await expect(page).toHaveURL(/\/generate\?task=[0-9a-f-]{36}$/)
  await reloadUntilCompleted(page)
  await expect(page.getByRole('link', { name: 'Download' })).toHaveAttribute('href', /download=pet-portrait-/)

  // "Make it bigger" is a plain form too: it opens the new task, paid for and running (a 1024 px
  // portrait takes the model up to a minute here, so the test does not wait for it).
  const parentUrl = page.url()
  await expect(page.getByText('You have 8 credits.')).toBeVisible()
  const upscale = page.locator('details.upscale')
  await upscale.locator('summary').click()
  await upscale.getByRole('radio', { name: /×2/ }).check()
  await upscale.getByRole('button', { name: 'Make it bigger' }).click()
  await expect(page).toHaveURL(/\/generate\?task=[0-9a-f-]{36}$/)
  expect(page.url()).not.toBe(parentUrl)
  await expect(page.getByText('You have 6 credits.')).toBeVisible()
  await expect(page.getByRole('progressbar', { name: 'Progress' })).toBeVisible()
  await context.close()
})

test('with JavaScript a refused photo shows beside the photo, and with the sidebar closed the page still follows its task @phone', async ({
  browser,
}) => {
  const { context } = await newUserContext(browser, { name: 'Follower' })
  const page = await context.newPage()
  await page.goto('/generate')
  await page.getByLabel('Pet photo').setInputFiles(await photo('small.jpg', { width: 400 }))
  await expect(page.getByRole('img', { name: 'Your pet photo' })).toBeVisible()
  await page.getByRole('button', { name: /^Generate/ }).click()
  await expect(page.locator('.field-error').filter({ hasText: /This photo is too small \(400×300 px\)/ })).toBeVisible()
  await expect(page.getByRole('dialog')).toHaveCount(0)
  expect(await creditsOf(context.request)).toBe(10)

  await page.getByLabel('Pet photo').setInputFiles(await photo())
  await page.getByRole('button', { name: 'Generate (2 credits)' }).click()
  const sidebar = page.getByRole('complementary', { name: "Today's Tasks" })
  await expect(sidebar).toBeVisible()
  await sidebar.getByRole('button', { name: 'Close' }).click()
  await expect(sidebar).toBeHidden()
  await expect(page.locator('.generate-result .generate-status')).toHaveText('Completed', { timeout: 30_000 })
  await expect(page.getByRole('img', { name: 'Your generated pet portrait' })).toBeVisible()
  await expect(page.locator('.site-header')).toContainText('8 credits')
  await expect(page).toHaveURL(/\/generate$/)
  await context.close()
})

test('the photo check: on upload with JavaScript, on submit without, and nothing is charged', async ({ browser }) => {
  const scripted = await newUserContext(browser, { name: 'Checker' })
  const page = await scripted.context.newPage()
  await page.goto('/generate')
  await page.getByLabel('Pet photo').setInputFiles(await photo('blurred.jpg', { blur: 4 }))
  await expect(page.getByText('Your photo can be used.')).toBeVisible()
  await expect(page.getByText('This photo is a little blurred')).toBeVisible()
  await page.getByLabel('Pet photo').setInputFiles(await photo('very-blurred.jpg', { blur: 10 }))
  await expect(page.getByRole('alert').filter({ hasText: 'This photo is too blurred' })).toBeVisible()
  await scripted.context.close()

  const { context } = await newUserContext(browser, { name: 'NoScriptChecker', javaScriptEnabled: false })
  const plain = await context.newPage()
  await plain.goto('/generate')
  await plain.getByLabel('Pet photo').setInputFiles(await photo('small.jpg', { width: 400 }))
  await plain.getByRole('button', { name: /^Generate/ }).click()
  await expect(plain.getByText(/This photo is too small \(400×300 px\)/)).toBeVisible()
  expect(await creditsOf(context.request)).toBe(10)
  await context.close()
})

test('a template handed over by the gallery is applied to the form, then removed from storage', async ({ browser }) => {
  const { context } = await newUserContext(browser, { name: 'Painter' })
  const page = await context.newPage()
  await page.goto('/contact')
  await page.evaluate(() =>
    sessionStorage.setItem(
      'pawtrait:template',
      JSON.stringify({
        prompt: 'A royal portrait',
        otherParams: {
          templatePrompt: 'A pet in a velvet cape on a throne',
          personification: 'yes',
          clothingTop: 'a velvet cape',
          accessories: '',
          clothingPants: '',
          clothingShoes: '',
          action: '',
          background: '',
        },
        templateId: 'template-1',
      }),
    ),
  )
  await page.goto('/generate')
  await expect(page.getByLabel('Template scene')).toHaveValue('A pet in a velvet cape on a throne')
  await expect(page.getByLabel('Top')).toHaveValue('a velvet cape')
  await expect(page.getByLabel('Yes, human-like')).toBeChecked()
  expect(await page.evaluate(() => sessionStorage.getItem('pawtrait:template'))).toBeNull()

  await page.getByLabel('Pet photo').setInputFiles(await photo())
  await page.getByRole('button', { name: /^Generate/ }).click()
  const item = page.getByRole('complementary', { name: "Today's Tasks" }).getByRole('listitem').first()
  await expect(item.getByText('Completed')).toBeVisible({ timeout: 30_000 })
  await expect(item.getByRole('link', { name: 'Download' })).toHaveAttribute('href', /download=pet-art-/)
  await context.close()
})

test('two versions: the cost follows the choice, both are shown, one becomes the favourite @phone', async ({
  browser,
}) => {
  const { context } = await newUserContext(browser, { name: 'Painter' })
  const page = await context.newPage()
  await page.goto('/generate')
  await page.getByLabel('Pet photo').setInputFiles(await photo())
  await page.getByLabel('Versions').selectOption('2')
  await page.getByRole('button', { name: 'Generate (4 credits)' }).click()

  const panel = page.locator('.generate-result')
  const second = panel.getByRole('img', { name: 'Version 2 of your portrait' })
  await expect(second).toBeVisible({ timeout: 30_000 })
  // Each version shows a WebP preview of its picture, not the full-size file.
  await expect(second).toHaveAttribute('srcset', /\?w=480 480w, .*\?w=720 720w$/)
  await expect.poll(() => second.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBeGreaterThan(0)
  expect(await second.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBeLessThanOrEqual(720)
  await expect(panel.getByText('Version 1 · Favourite')).toBeVisible()
  await expect(panel.getByRole('link', { name: /Download all \(2 versions, zip\)/ })).toHaveAttribute(
    'href',
    /\/api\/async-image\/task\/[0-9a-f-]{36}\/zip$/,
  )
  // The Today's Tasks sidebar the submission opened covers the page on a phone.
  await page.getByRole('complementary', { name: "Today's Tasks" }).getByRole('button', { name: 'Close' }).click()
  await panel.getByRole('button', { name: 'Make favourite' }).click()
  await expect(panel.getByText('Version 2 · Favourite')).toBeVisible()
  await expect(page).toHaveURL(/\/generate$/) // answered in place, not by a page load

  await page.goto('/history')
  await expect(page.getByText('Version 2 · Favourite')).toBeVisible()
  await context.close()
})

test('without JavaScript: two versions, and the favourite chosen by a plain form', async ({ browser }) => {
  const { context } = await newUserContext(browser, { javaScriptEnabled: false, name: 'Painter' })
  const page = await context.newPage()
  await page.goto('/generate')
  await page.getByLabel('Pet photo').setInputFiles(await photo())
  await page.getByLabel('Guide mode').check()
  await page.getByLabel('Versions').selectOption('2')
  await page.getByRole('button', { name: /^Generate/ }).click()
  await expect(page).toHaveURL(/\/generate\?task=[0-9a-f-]{36}$/)
  await expect(async () => {
    await page.reload()
    await expect(page.getByText('Completed')).toBeVisible({ timeout: 1000 })
  }).toPass({ timeout: 30_000 })
  await expect(page.getByRole('img', { name: 'Version 2 of your portrait' })).toBeVisible()

  await page.getByRole('button', { name: 'Make favourite' }).click()
  await expect(page).toHaveURL(/\/generate\?task=[0-9a-f-]{36}$/)
  await expect(page.getByText('Version 2 · Favourite')).toBeVisible()

  await page.goto('/history')
  await expect(page.getByText('Version 2 · Favourite')).toBeVisible()
  await page.getByRole('button', { name: 'Make favourite' }).click()
  await expect(page).toHaveURL(/\/history\?type=image&page=1$/)
  await expect(page.getByText('Version 1 · Favourite')).toBeVisible()
  await context.close()
})
