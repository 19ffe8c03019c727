import fs from 'node:fs'
import path from 'node:path'
import { expect, request as playwrightRequest, type Page } from '@playwright/test'
import { simpleParser } from 'mailparser'
import { newUserContext, petPhoto, signIn, test } from './support.ts'

const TASK_POLL = /\/api\/async-(image|video)\/task\//

/** Submits a portrait from /generate; answers the task id. */
async function generatePortrait(page: Page) {
  await page.goto('/generate')
  await page.getByLabel('Pet photo').setInputFiles(await petPhoto())
  // Sent to the page's own action, which answers its script with the task's id.
  const submitted = page.waitForResponse(
    (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/generate',
  )
  await page.getByRole('button', { name: /^Generate/ }).click()
  return ((await (await submitted).json()) as { taskId: string }).taskId
}

test('the sidebar shows Completed within a second of the worker finishing, with no task poll while the stream is up', async ({
  browser,
}) => {
  const { context } = await newUserContext(browser, { name: 'Watcher' })
  const page = await context.newPage()
  const polls: string[] = []
  page.on('request', (request) => {
    if (TASK_POLL.test(request.url())) polls.push(request.url())
  })
  const streamOpened = page.waitForResponse((response) => response.url().endsWith('/api/tasks/events'))
  const taskId = await generatePortrait(page)
  expect((await streamOpened).headers()['content-type']).toMatch(/^text\/event-stream/)

  // The test (not the page) watches the task closely, to know when the worker finished it.
  await expect
    .poll(async () => (await (await context.request.get(`/api/async-image/task/${taskId}`)).json()).status, {
      intervals: [100],
      timeout: 30_000,
    })
    .toBe('completed')
  const item = page.getByRole('complementary', { name: "Today's Tasks" }).getByRole('listitem').first()
  await expect(item.getByText('Completed')).toBeVisible({ timeout: 1000 })
  await expect(page.getByRole('img', { name: 'Your generated pet portrait' })).toBeVisible()
  expect(polls).toEqual([])
  await context.close()
})

test('when the stream is blocked the page falls back to polling every 2 s', async ({ browser }) => {
  const { context } = await newUserContext(browser, { name: 'Poller' })
  const page = await context.newPage()
  await page.route('**/api/tasks/events', (route) => route.abort())
  const polls: string[] = []
  page.on('request', (request) => {
    if (TASK_POLL.test(request.url())) polls.push(request.url())
  })
  const taskId = await generatePortrait(page)
  const item = page.getByRole('complementary', { name: "Today's Tasks" }).getByRole('listitem').first()
  await expect(item.getByText('Completed')).toBeVisible({ timeout: 30_000 })
  expect(polls.length).toBeGreaterThan(0)
  expect(polls.every((url) => url.endsWith(`/api/async-image/task/${taskId}`))).toBe(true)
  await context.close()
})

test('a refused stream (503) is tried again a few seconds later; once it is up nothing polls', async ({ browser }) => {
  const { context } = await newUserContext(browser, { name: 'Retrier' })
  const page = await context.newPage()
  let attempts = 0
  await page.route('**/api/tasks/events', (route) =>
    ++attempts === 1
      ? route.fulfill({ status: 503, contentType: 'application/json', body: '{"message":"Briefly unavailable"}' })
      : route.continue(),
  )
  const reopened = page.waitForResponse(
    (response) => response.url().endsWith('/api/tasks/events') && response.status() === 200,
    { timeout: 20_000 },
  )
  const submitted = await context.request.post('/api/async-image/generate', {
    multipart: { images: await petPhoto(), style: 'general' },
  })
  expect(submitted.status()).toBe(200)
  await page.goto('/history')
  await reopened
  expect(attempts).toBe(2)
  const pollsAfter: string[] = []
  page.on('request', (request) => {
    if (TASK_POLL.test(request.url())) pollsAfter.push(request.url())
  })
  await page.getByRole('button', { name: "Today's Tasks" }).click()
  await expect(page.getByRole('complementary', { name: "Today's Tasks" }).getByText('Completed')).toBeVisible({
    timeout: 30_000,
  })
  expect(pollsAfter).toEqual([])
  await context.close()
})

test('a tab whose stream a newer tab superseded polls and stays off the stream for a while', async ({ browser }) => {
  const { context } = await newUserContext(browser, { name: 'Superseded' })
  const page = await context.newPage()
  let streamRequests = 0
  // What the server sends the oldest of a user's streams at the cap (task-streams.server.ts).
  await page.route('**/api/tasks/events', (route) => {
    streamRequests++
    return route.fulfill({ status: 200, contentType: 'text/event-stream', body: 'event: superseded\ndata: \n\n' })
  })
  const polls: string[] = []
  page.on('request', (request) => {
    if (TASK_POLL.test(request.url())) polls.push(request.url())
  })
  await generatePortrait(page)
  const item = page.getByRole('complementary', { name: "Today's Tasks" }).getByRole('listitem').first()
  await expect(item.getByText('Completed')).toBeVisible({ timeout: 30_000 })
  expect(polls.length).toBeGreaterThan(0)
  // An EventSource left to itself reconnects 2 s after its stream ends; a superseded tab waits 30 s or more.
  await page.waitForTimeout(3000)
  expect(streamRequests).toBe(1)
  await context.close()
})

test('signing out in another tab ends this tab’s stream: it shows the sign-in page and does not reconnect', async ({
  browser,
}) => {
  const { context } = await newUserContext(browser, { name: 'Revoked' })
  const page = await context.newPage()
  let streamRequests = 0
  page.on('request', (request) => {
    if (request.url().endsWith('/api/tasks/events')) streamRequests++
  })
  const streamOpened = page.waitForResponse((response) => response.url().endsWith('/api/tasks/events'))
  await page.goto('/profile')
  await streamOpened

  // Another tab of the same browser signs out: the server ends this tab's stream with `event: revoked`.
  expect((await context.request.post('/api/auth/logout')).status()).toBe(200)
  // The page's loaders, asked again, find nobody signed in: /profile sends the tab to /login.
  await expect(page).toHaveURL(/\/login\?redirectTo=%2Fprofile/, { timeout: 5_000 })
  await page.waitForTimeout(3000)
  expect(streamRequests).toBe(1)
  await context.close()
})

test('a finished video emails its link; the unsubscribe link works from a fresh browser and the profile switch without JavaScript', async ({
  browser,
  baseURL,
  app,
}) => {
  const admin = await browser.newContext()
  await signIn(admin.request)
  const { user } = await (await admin.request.get('/api/auth/me')).json()
  await admin.request.put(`/api/userManagement/users/${user.id}/credits`, { data: { credits: 100 } })
  const video = await admin.request.post('/api/async-video/generate', {
    multipart: { mode: 'text', prompt: 'A corgi on a skateboard', quality: 'fast' },
  })
  expect(video.status()).toBe(200)
  const { taskId } = (await video.json()) as { taskId: string }

  let mail: Awaited<ReturnType<typeof findMail>>
  await expect
    .poll(async () => (mail = await findMail(app.dataDir, `/generate-video?task=${taskId}`)) !== undefined, {
      timeout: 60_000,
    })
    .toBe(true)
  expect(mail!.subject).toBe('Your video is ready')
  const unsubscribe = /(http\S+\/unsubscribe\?token=\S+)/.exec(mail!.text ?? '')![1]

  // One click in the email, in a browser that never signed in.
  const fresh = await browser.newContext()
  const page = await fresh.newPage()
  await page.goto(unsubscribe)
  await page.getByRole('button', { name: 'Unsubscribe' }).click()
  await expect(page.getByRole('status')).toContainText('you will no longer get an email')
  await fresh.close()

  // The mail provider's one-click POST (RFC 8058): no cookie, no origin.
  const provider = await playwrightRequest.newContext({ baseURL })
  const oneClick = await provider.post(unsubscribe, { form: { 'List-Unsubscribe': 'One-Click' } })
  expect(oneClick.status()).toBe(200)
  await provider.dispose()

  // The profile shows the emails off; its switch turns them back on without JavaScript.
  const noScript = await browser.newContext({ javaScriptEnabled: false })
  await signIn(noScript.request)
  const profile = await noScript.newPage()
  await profile.goto('/profile')
  const toggle = profile.getByRole('switch', { name: /Email me when/ })
  await expect(toggle).toHaveAttribute('aria-checked', 'false')
  await toggle.click()
  await expect(profile.getByRole('switch', { name: /Email me when/ })).toHaveAttribute('aria-checked', 'true')
  await expect(profile.getByText('You will get an email when long work ends')).toBeVisible()
  // The operator sees this machine's streams (this page's own, once it is up) and its listener.
  const status = await admin.newPage()
  const streamUp = status.waitForResponse((response) => response.url().endsWith('/api/tasks/events'))
  await status.goto('/system-status')
  await streamUp
  await status.reload()
  await expect(status.getByText(/[1-9]\d* open streams · hearing task changes/)).toBeVisible()
  await Promise.all([noScript.close(), admin.close()])
})

/** The outbox message (DATA_DIR/outbox, no SMTP in e2e) whose text contains `text`. */
async function findMail(dataDir: string, text: string) {
  const outbox = path.join(dataDir, 'outbox')
  if (!fs.existsSync(outbox)) return undefined
  for (const file of fs.readdirSync(outbox)) {
    const mail = await simpleParser(fs.readFileSync(path.join(outbox, file)))
    if (mail.text?.includes(text)) return mail
  }
  return undefined
}

test('browser notifications: asked for only from the button, then shown when a task ends while the tab is hidden', async ({
  browser,
}) => {
  const { context } = await newUserContext(browser, { name: 'Notified' })
  // A stand-in for the Notification API and for a hidden tab, recording what the page does; its
  // state lives in localStorage so that it outlasts a navigation.
  await context.addInitScript(() => {
    const shown: string[] = []
    ;(window as unknown as { shown: string[] }).shown = shown
    class FakeNotification {
      static get permission() {
        return (localStorage.getItem('fake-permission') ?? 'default') as NotificationPermission
      }
      static async requestPermission() {
        localStorage.setItem('fake-asked', String(Number(localStorage.getItem('fake-asked') ?? 0) + 1))
        localStorage.setItem('fake-permission', 'granted')
        return 'granted' as const
      }
      constructor(title: string, options?: NotificationOptions) {
        shown.push(`${title}: ${options?.body ?? ''}`)
      }
    }
    Object.defineProperty(window, 'Notification', { value: FakeNotification })
    Object.defineProperty(document, 'hidden', { get: () => localStorage.getItem('fake-hidden') === 'yes' })
  })
  const asked = (page: Page) => page.evaluate(() => Number(localStorage.getItem('fake-asked') ?? 0))
  const page = await context.newPage()
  await page.goto('/generate')
  await page.getByRole('button', { name: "Today's Tasks" }).click()
  const toggle = page.getByRole('button', { name: /Notify me when done/ })
  await expect(toggle).toBeVisible()
  expect(await asked(page)).toBe(0)
  await toggle.click()
  await expect(page.getByRole('button', { name: /Notifying when done/ })).toHaveAttribute('aria-pressed', 'true')

  await page.evaluate(() => localStorage.setItem('fake-hidden', 'yes'))
  await generatePortrait(page)
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { shown: string[] }).shown), { timeout: 30_000 })
    .toEqual(['Your portrait is ready: Generate pet portrait'])
  expect(await asked(page)).toBe(1)
  await context.close()
})
