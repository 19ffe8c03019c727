import { type APIRequestContext, type Browser, expect } from '@playwright/test'
import sharp from 'sharp'
import { e2eAdmin } from '../../playwright.config.ts'

let counter = 0

/** A unique suffix for emails and names across tests and runs. */
export const unique = () => `${Date.now()}-${++counter}-${Math.floor(Math.random() * 1e4)}`

/** A browser context signed in as a new user with the registration bonus (registered through the API, which also sets the page cookie). */
export async function newUserContext(browser: Browser, options: { javaScriptEnabled?: boolean; name?: string } = {}) {
  const { name = 'Tester', ...contextOptions } = options
  const context = await browser.newContext(contextOptions)
  const id = unique()
  const account = { name: `${name} ${id}`, email: `${name.toLowerCase()}-${id}@example.com`, password: 'pw-123456' }
  const response = await context.request.post('/api/auth/register', { data: account })
  expect(response.status()).toBe(201)
  return { context, ...account }
}

/** Signs a request context in (and with it the browser context's cookie jar). */
export async function signIn(request: APIRequestContext, credentials: { email: string; password: string } = e2eAdmin) {
  const response = await request.post('/api/auth/login', { data: credentials })
  expect(response.status()).toBe(200)
}

export async function adminContext(browser: Browser) {
  const context = await browser.newContext()
  await signIn(context.request)
  return context
}

export async function creditsOf(request: APIRequestContext) {
  const me = await (await request.get('/api/auth/me')).json()
  return me.user.credits as number
}

/** A small JPEG "pet photo" for upload fields. */
export async function petPhoto(name = 'corgi.jpg') {
  return {
    name,
    mimeType: 'image/jpeg',
    buffer: await sharp({ create: { width: 320, height: 240, channels: 3, background: '#c8843c' } })
      .jpeg()
      .toBuffer(),
  }
}
