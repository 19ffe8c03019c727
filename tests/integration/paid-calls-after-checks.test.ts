/**
 * Issue 38, item 4: paid outside calls only for users who can pay. With OpenAI as the image
 * provider and moderation on, the web's photo check asks the vision model and moderation asks the
 * moderation endpoint; the fake's request logs show which calls were made. A user with no credits,
 * or with the active-task cap reached, is refused before either; the vision cache is keyed by the
 * picture, not the file; /api/photo-check is limited per user and per client; a moderation 429
 * (our own volume) refuses the submission with 503 instead of letting it through unmoderated.
 */
import { action as photoCheckRoute } from '#app/routes/api.photo-check.ts'
import { getDb } from '#platform/db.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { CLIENT_ADDRESS_HEADER } from '#platform/client-address.server.ts'
import {
  PHOTO_CHECKS_PER_CLIENT_PER_HOUR,
  PHOTO_CHECKS_PER_USER_PER_HOUR,
} from '#domain/limits/photo-check-limits.server.ts'
import { withOpenAiChecks } from '#tests/helpers/openai-checks.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import {
  balanceAndLedgerSum,
  petPhoto,
  photoFile,
  submitGeneration,
  tasksOf,
  withOwnDataDir,
} from '#tests/helpers/generation.ts'

const media = withOwnDataDir()
const openai = await withOpenAiChecks({ MAX_ACTIVE_TASKS_PER_USER: '1' })
beforeEach(() => {
  openai.setMode('success')
  openai.moderation.fail('none')
  openai.moderation.flag({})
})

/** How many vision and moderation calls the fake has seen so far. */
const calls = () => ({ vision: openai.visionRequests.length, moderation: openai.moderation.requests.length })

const customize = { mode: 'customize', prompt: 'Wearing a tiny crown' }

async function checkPhoto(token: string, bytes: Buffer, address = '192.0.2.10') {
  const form = new FormData()
  form.append('image', photoFile(bytes))
  const response = await callRoute(
    photoCheckRoute,
    makeRequest('/api/photo-check', { token, body: form, headers: { [CLIENT_ADDRESS_HEADER]: address } }),
  )
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() }
}

test('0 credits: 402 with needPurchase, and neither the vision model nor moderation was asked', async () => {
  const { user, token } = await createTestUser({ credits: 0 })
  const before = calls()
  const answer = await submitGeneration(token, [photoFile(await petPhoto('#7a4a2a'))], customize)
  expect(answer).toEqual({
    status: 402,
    body: { message: 'You need at least 2 credits to generate an image', needPurchase: true },
  })
  expect(calls()).toEqual(before)
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 0, ledgerSum: 0 })
  expect(await tasksOf(user.id)).toEqual([])
  expect(media.taskFiles()).toEqual([])
})

test('the active-task cap reached: 429 before any paid call; the first submission paid for its calls', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  const before = calls()
  expect((await submitGeneration(token, [photoFile(await petPhoto('#6a3a1a'))], customize)).status).toBe(200)
  const afterFirst = calls()
  expect(afterFirst.vision).toBe(before.vision + 1)
  expect(afterFirst.moderation).toBeGreaterThan(before.moderation)

  const second = await submitGeneration(token, [photoFile(await petPhoto('#5a2a0a'))], customize)
  expect(second.status).toBe(429)
  expect(calls()).toEqual(afterFirst)
  expect(await tasksOf(user.id)).toHaveLength(1)
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 8, ledgerSum: 8 })
})

test('the vision cache is keyed by the picture: one appended byte, or new metadata, is answered from the cache', async () => {
  const { token } = await createTestUser({ credits: 10 })
  const photo = await petPhoto('#8a5a3a')
  const before = calls().vision
  const cachedBefore = await cachedChecks()
  expect((await checkPhoto(token, photo)).body).toMatchObject({ ok: true, vision: 'checked' })
  expect(calls().vision).toBe(before + 1)

  const appended = Buffer.concat([photo, Buffer.from([0])])
  expect((await checkPhoto(token, appended)).body).toMatchObject({ ok: true, vision: 'cached' })
  expect(calls().vision).toBe(before + 1)
  expect(await cachedChecks()).toBe(cachedBefore + 1)

  // Another picture is another call.
  expect((await checkPhoto(token, await petPhoto('#9a6a4a'))).body).toMatchObject({ vision: 'checked' })
  expect(calls().vision).toBe(before + 2)
})

async function cachedChecks() {
  const { count } = await getDb()
    .selectFrom('photo_checks')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(count)
}

test('photo checks are limited per user, then per client: 429 with Retry-After', async () => {
  // A small photo: refused by the local checks, so no vision call is made while counting.
  const small = await petPhoto('#4a4a4a', 256)
  const first = await createTestUser()
  for (let index = 0; index < PHOTO_CHECKS_PER_USER_PER_HOUR; index++) {
    expect((await checkPhoto(first.token, small, '198.51.100.7')).status).toBe(200)
  }
  const refused = await checkPhoto(first.token, small, '203.0.113.99')
  expect(refused.status).toBe(429)
  expect(Number(refused.retryAfter)).toBeGreaterThan(0)
  expect(refused.body.message).toMatch(/^Too many attempts, please try again in \d+ minutes?$/)

  // Another user on the same client shares its allowance and uses up the rest.
  const second = await createTestUser()
  for (let index = PHOTO_CHECKS_PER_USER_PER_HOUR; index < PHOTO_CHECKS_PER_CLIENT_PER_HOUR; index++) {
    expect((await checkPhoto(second.token, small, '198.51.100.7')).status).toBe(200)
  }
  const third = await createTestUser()
  const byClient = await checkPhoto(third.token, small, '198.51.100.7')
  expect(byClient.status).toBe(429)
  expect(Number(byClient.retryAfter)).toBeGreaterThan(0)
  // The same new user from another client is not held back.
  expect((await checkPhoto(third.token, small, '198.51.100.8')).status).toBe(200)
})

test('moderation answering 429 (our own volume): 503 with Retry-After, nothing charged, no task, no file', async () => {
  openai.moderation.fail('rate_limited')
  const busy = async () => (await getMetrics().moderationBusy.get()).values[0]?.value ?? 0
  const before = await busy()
  const filesBefore = media.taskFiles()
  const { user, token } = await createTestUser({ credits: 10 })
  const response = await submitGeneration(token, [photoFile(await petPhoto('#3a2a1a'))], customize)
  expect(response).toEqual({
    status: 503,
    body: { message: 'Our safety check is busy right now, so nothing was charged. Please try again in a minute.' },
  })
  expect(await busy()).toBeGreaterThan(before)
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 10, ledgerSum: 10 })
  expect(await tasksOf(user.id)).toEqual([])
  expect(media.taskFiles()).toEqual(filesBefore)

  // An outage (5xx) keeps the old rule: the submission goes on unmoderated.
  openai.moderation.fail('server_error')
  expect((await submitGeneration(token, [photoFile(await petPhoto('#3a2a1a'))], customize)).status).toBe(200)
  expect(await tasksOf(user.id)).toHaveLength(1)
})
