import { expect, type Page } from '@playwright/test'
import { unique, test } from './support.ts'

// Registration, logout, login and profile through the real pages (email verification is off in
// the e2e server), plus the register form posting with JavaScript turned off.

async function fillRegistration(
  page: Page,
  account: { name: string; email: string; password: string; confirm: string },
) {
  await page.getByLabel('Username').fill(account.name)
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password', { exact: true }).fill(account.password)
  await page.getByLabel('Confirm password').fill(account.confirm)
}

test('register, log out, log in and update the profile', async ({ page }) => {
  const id = unique()
  const account = { name: `Rex ${id}`, email: `rex-${id}@example.com`, password: 'secret-pass', confirm: 'secret-pass' }

  await page.goto('/register')
  await fillRegistration(page, account)
  await page.getByRole('button', { name: 'Register', exact: true }).click()
  await expect(page).toHaveURL('/')
  const userMenu = page.locator('summary', { hasText: account.name })
  await expect(userMenu).toBeVisible()
  await expect(page.getByText('10 credits')).toBeVisible()

  await userMenu.click()
  await page.getByRole('button', { name: 'Logout' }).click()
  await expect(page.getByRole('link', { name: 'Login' })).toBeVisible()
  await expect(userMenu).toHaveCount(0)

  await page.goto('/login')
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password').fill('wrong-password')
  await page.getByRole('button', { name: 'Login' }).click()
  await expect(page.getByRole('alert')).toHaveText('Invalid email or password')
  await page.getByLabel('Password').fill(account.password)
  await page.getByRole('button', { name: 'Login' }).click()
  await expect(page).toHaveURL('/')
  await expect(userMenu).toBeVisible()

  await page.goto('/profile')
  await expect(page.getByLabel('Email (cannot be changed)')).toHaveValue(account.email)
  await page.getByLabel('Username').fill('')
  await page.getByLabel('Username').blur()
  await expect(page.getByText('Please enter a username')).toBeVisible()
  await page.getByLabel('Username').fill(`Biscuit ${id}`)
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByText('Profile updated successfully')).toBeVisible()
  await expect(page.locator('summary', { hasText: `Biscuit ${id}` })).toBeVisible()
  // Success messages vanish after 3 seconds.
  await expect(page.getByText('Profile updated successfully')).toBeHidden({ timeout: 5_000 })

  // A new password needs the current one.
  await page.getByLabel(/^New password/).fill('newer-secret')
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByText('Please enter your current password to set a new one')).toBeVisible()
  await page.getByLabel(/^New password/).fill('newer-secret')
  await page.getByLabel(/^Current password/).fill(account.password)
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByText('Profile updated successfully')).toBeVisible()
})

test('the register form validates as the user types and counts down before a code can be resent', async ({ page }) => {
  await page.goto('/register')
  await page.getByLabel('Password', { exact: true }).fill('secret-pass')
  await page.getByLabel('Confirm password').fill('secret-pasX')
  await page.getByLabel('Confirm password').blur()
  await expect(page.getByText('Passwords do not match')).toBeVisible()
  await page.getByLabel('Confirm password').fill('secret-pass')
  await expect(page.getByText('Passwords do not match')).toBeHidden()

  await page.getByLabel('Email').fill(`code-${unique()}@example.com`)
  await page.getByRole('button', { name: 'Send Code' }).click()
  await expect(page.getByText('Verification code sent, please check your email')).toBeVisible()
  await expect(page.getByRole('button', { name: /^Resend in \d+s$/ })).toBeDisabled()
})

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false })

  test('the register form posts and the server shows "Passwords do not match"', async ({ page }) => {
    const id = unique()
    await page.goto('/register')
    await fillRegistration(page, {
      name: `NoJs ${id}`,
      email: `nojs-${id}@example.com`,
      password: 'secret-pass',
      confirm: 'different-pass',
    })
    await page.getByRole('button', { name: 'Register', exact: true }).click()
    await expect(page.getByText('Passwords do not match')).toBeVisible()
    // What was typed is still there.
    await expect(page.getByLabel('Username')).toHaveValue(`NoJs ${id}`)

    await page.getByLabel('Password', { exact: true }).fill('secret-pass')
    await page.getByLabel('Confirm password').fill('secret-pass')
    await page.getByRole('button', { name: 'Register', exact: true }).click()
    await expect(page).toHaveURL('/')
    await expect(page.locator('summary', { hasText: `NoJs ${id}` })).toBeVisible()
  })
})
