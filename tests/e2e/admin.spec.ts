import { expect, type Page } from '@playwright/test'
import { presetRange } from '#domain/analytics/date-range.ts'
import { e2eAdmin } from './worker-app.ts'
import { petPhoto, signIn, test } from './support.ts'

const statCard = (page: Page, label: string) =>
  page.locator('.stat-card').filter({ hasText: label }).locator('.stat-value')

test('the superadmin picks a range, refreshes and reads the cards and the chart', async ({ page }) => {
  await signIn(page.request)
  // One image generation, so that the chart has a bar.
  const generated = await page.request.post('/api/async-image/generate', {
    multipart: { images: await petPhoto('pet.jpg', { coat: '#c4543a' }), style: 'general', prompt: 'A cat' },
  })
  expect(generated.status()).toBe(200)

  await page.goto('/analytics')
  await expect(page.getByRole('heading', { name: 'Analytics' })).toBeVisible()
  await expect(page.getByText('Choose a time range and press Refresh Data')).toBeVisible()

  const week = presetRange('week')
  await page.getByRole('button', { name: 'Last 7 Days' }).click()
  await expect(page.getByLabel('Start date')).toHaveValue(week.startDate)
  await expect(page.getByLabel('End date')).toHaveValue(week.endDate)
  // Choosing a range fetches nothing.
  await expect(page.locator('.stat-card')).toHaveCount(0)

  // Events are stored in batches within a second, so the first refresh may come too early.
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh Data' }).click()
    await expect(page).toHaveURL(new RegExp(`startDate=${week.startDate}&endDate=${week.endDate}`))
    expect(Number(await statCard(page, 'Image Generations').textContent())).toBeGreaterThanOrEqual(1)
    expect(Number(await statCard(page, 'Website Visits').textContent())).toBeGreaterThanOrEqual(1)
  }).toPass({ timeout: 15_000 })

  for (const label of ['Registered Users', 'Logged-in Users', 'Recharge Users', 'API Calls']) {
    await expect(statCard(page, label)).toHaveText(/^\d[\d,]*$/)
  }
  const chart = page.locator('.chart-scroll')
  await expect(chart.locator('svg.recharts-surface')).toBeVisible()
  await expect(chart.locator('.recharts-bar-rectangle path')).not.toHaveCount(0)
  await expect(chart.getByText(week.endDate.slice(5))).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Payment Method Statistics' })).toBeVisible()
  // Local addresses have no place in the geolocation database.
  await expect(page.getByRole('cell', { name: 'Unknown' }).first()).toBeVisible()
})

test('without JavaScript a range button fills the dates and Refresh Data loads the statistics', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false })
  await signIn(context.request)
  const page = await context.newPage()
  await page.goto('/analytics')
  await page.getByRole('button', { name: 'Last 30 Days' }).click()
  await expect(page.getByLabel('Start date')).toHaveValue(presetRange('month').startDate)
  await expect(page.locator('.stat-card')).toHaveCount(0)
  await page.getByRole('button', { name: 'Refresh Data' }).click()
  await expect(page.locator('.stat-card')).toHaveCount(6)
  await expect(page.getByRole('heading', { name: 'Visitor Region Statistics' })).toBeVisible()
  await context.close()
})

test('a non-superadmin is sent away from /analytics and restricted on /user-management', async ({ browser }) => {
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto('/analytics')
  await expect(page).toHaveURL(/\/login/)
  await page.goto('/user-management')
  await expect(page.getByRole('heading', { name: '访问受限' })).toBeVisible()
  await context.close()
})

test('the superadmin adds a user, edits their credits, bans them and deletes them, in Chinese', async ({ page }) => {
  await signIn(page.request)
  await page.goto('/user-management')
  await expect(page.getByRole('heading', { name: '用户管理' })).toBeVisible()
  const adminRow = page.getByRole('row').filter({ hasText: e2eAdmin.email })
  await expect(adminRow.getByRole('button', { name: '封禁' })).toHaveCount(0)
  await expect(adminRow.getByRole('link', { name: '删除' })).toHaveCount(0)

  const email = `managed-${Date.now()}@example.com`
  const password = 'managed-password'
  await page.getByRole('link', { name: '添加用户' }).click()
  const addDialog = page.getByRole('dialog', { name: '添加用户' })
  await addDialog.getByLabel('邮箱').fill('not-an-email')
  await addDialog.getByLabel('密码').fill(password)
  await addDialog.getByLabel('名称').fill('小白')
  await addDialog.getByRole('button', { name: '添加' }).click()
  await expect(addDialog.getByText('请输入有效的邮箱地址')).toBeVisible()
  await addDialog.getByLabel('邮箱').fill(email)
  await addDialog.getByLabel('密码').fill(password)
  await expect(addDialog.getByLabel('初始积分')).toHaveValue('10')
  await addDialog.getByRole('button', { name: '添加' }).click()
  await expect(page.getByText('用户添加成功')).toBeVisible()
  await expect(addDialog).toHaveCount(0)

  const row = page.getByRole('row').filter({ hasText: email })
  await expect(row).toContainText('普通用户')
  await expect(row.getByRole('cell', { name: '10', exact: true })).toBeVisible()

  await page.getByRole('searchbox').fill('MANAGED-')
  await expect(row).toBeVisible()
  await expect(adminRow).toHaveCount(0)
  await page.getByRole('searchbox').fill('')

  await row.getByRole('link', { name: '修改积分' }).click()
  const creditsDialog = page.getByRole('dialog', { name: '修改积分' })
  await creditsDialog.getByLabel('积分', { exact: true }).fill('55')
  await creditsDialog.getByRole('button', { name: '保存' }).click()
  await expect(page.getByText('积分更新成功')).toBeVisible()
  await expect(row.getByRole('cell', { name: '55', exact: true })).toBeVisible()

  await row.getByRole('button', { name: '封禁' }).click()
  await expect(page.getByText('已禁止该用户登录')).toBeVisible()
  await expect(row).toContainText('已封禁')
  const bannedLogin = await page.context().request.post('/api/auth/login', { data: { email, password } })
  expect(bannedLogin.status()).toBe(403)
  await page.getByRole('link', { name: '显示消费排行' }).click()
  await expect(page.getByRole('heading', { name: '消费排行' })).toBeVisible()

  await row.getByRole('link', { name: '删除' }).click()
  const deleteDialog = page.getByRole('dialog', { name: '删除用户' })
  await expect(deleteDialog).toContainText('此操作无法撤销')
  await deleteDialog.getByRole('button', { name: '确认删除' }).click()
  await expect(page.getByText('用户已删除')).toBeVisible()
  await expect(row).toHaveCount(0)
})
