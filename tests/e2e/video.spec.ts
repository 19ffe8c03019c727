import { expect } from '@playwright/test'
import { newUserContext, signIn, test } from './support.ts'

test('the superadmin generates a text-to-video, sees it complete and plays it', async ({ page }) => {
  await signIn(page.request)
  // Enough credits whatever other specs spent before.
  const { user } = await (await page.request.get('/api/auth/me')).json()
  const topUp = await page.request.put(`/api/userManagement/users/${user.id}/credits`, { data: { credits: 100 } })
  expect(topUp.status()).toBe(200)

  await page.goto('/')
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Generate Video' }).click()
  await expect(page).toHaveURL(/\/generate-video$/)
  await expect(page.getByRole('heading', { name: 'Generate a pet video' })).toBeVisible()
  await expect(page.getByText('Current credits: 100')).toBeVisible()

  // Image mode needs an image, and refuses one over 10 MB.
  const generate = page.getByRole('button', { name: /^GENERATE VIDEO/ })
  await expect(generate).toBeDisabled()
  await page.getByLabel('Pet image').setInputFiles({
    name: 'huge.jpg',
    mimeType: 'image/jpeg',
    buffer: Buffer.alloc(11 * 1024 * 1024, 1),
  })
  await expect(page.getByText('File size should not exceed 10MB')).toBeVisible()
  await expect(generate).toBeDisabled()

  await page.getByLabel('Text to Video').check()
  await expect(page.getByLabel('Pet image')).toBeHidden()
  const resolution = page.getByLabel('Resolution')
  await page.getByLabel('Aspect ratio').selectOption('16:9')
  await resolution.selectOption('1280p')
  await page.getByLabel('Aspect ratio').selectOption('9:16')
  await expect(resolution).toBeDisabled()
  await expect(resolution).toHaveValue('720p')
  await page.getByLabel('Aspect ratio').selectOption('16:9')
  await expect(resolution).toBeEnabled()

  await expect(page.getByLabel('Stable (20 credits)')).toBeChecked()
  await page.getByLabel('Fast (10 credits)').check()
  await expect(generate).toHaveText('GENERATE VIDEO (10 credits)')
  await expect(generate).toBeDisabled()
  await page.getByLabel('Prompt').fill('A happy corgi running on a sunny beach')
  await expect(generate).toBeEnabled()
  await generate.click()

  // The task appears queued in Today's Tasks, which opens, and the credits are refreshed.
  const sidebar = page.getByRole('complementary', { name: "Today's Tasks" })
  await expect(sidebar).toBeVisible()
  const item = sidebar.getByRole('listitem').first()
  await expect(item).toContainText('Generate pet video')
  await expect(page.getByText('Current credits: 90')).toBeVisible()

  const result = page.locator('.generate-result')
  await expect(result.getByText('Completed')).toBeVisible({ timeout: 45_000 })
  const player = result.getByLabel('Your pet video')
  await expect(player).toHaveAttribute('src', /^\/media\/tasks\/.+\.mp4$/)
  await expect(player).toHaveJSProperty('controls', true)
  // The browser decodes it: the player knows the video's size once its metadata has loaded.
  await expect
    .poll(() => player.evaluate((video: HTMLVideoElement) => `${video.videoWidth}x${video.videoHeight}`))
    .toBe('1280x720')

  const downloading = page.waitForEvent('download')
  await result.getByRole('link', { name: 'Download Video' }).click()
  expect((await downloading).suggestedFilename()).toMatch(/^pet-video-[0-9a-f]{8}-\d{4}-\d{2}-\d{2}\.mp4$/)

  await result.getByRole('link', { name: 'Generate Another' }).click()
  await expect(result.getByText('Your video will appear here.')).toBeVisible()
  await expect(page.getByLabel('Image to Video')).toBeChecked()
})

test('a normal user sees Access Restricted and no menu link', async ({ browser }) => {
  const { context } = await newUserContext(browser, { name: 'Plain' })
  const page = await context.newPage()
  await page.goto('/')
  await expect(page.getByRole('link', { name: 'Generate Video', includeHidden: true })).toHaveCount(0)

  const response = await page.goto('/generate-video')
  expect(response?.status()).toBe(403)
  await expect(page.getByRole('heading', { name: 'Access Restricted' })).toBeVisible()
  await expect(page.getByText('Video generation is only available to super administrators.')).toBeVisible()
  await expect(page.getByRole('button', { name: /GENERATE VIDEO/ })).toHaveCount(0)
  await context.close()
})
