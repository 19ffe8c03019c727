import { sql } from 'kysely'
import sharp from 'sharp'
import { action as fixAction } from '#app/routes/api.async-image.task.$id.fix.ts'
import { action as generatePage } from '#app/routes/generate.tsx'
import { action as updateCase } from '#app/routes/api.image.update-case.ts'
import { getDb } from '#platform/db.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import {
  balanceAndLedgerSum,
  petPhoto,
  photoFile,
  submitGeneration,
  tasksOf,
  withOwnDataDir,
} from '#tests/helpers/generation.ts'
import { submitVideo } from '#tests/helpers/video.ts'

// Moderation before paying (issue 33 item 4): with an OpenAI key the web sends the typed text and
// the uploads to the moderation endpoint (the fake, which flags what the test says) before any
// charge. The image provider is the instant one: no worker runs here, so nothing could call it.
const media = withOwnDataDir()
const openai = await startOpenAiFake()
Object.assign(process.env, {
  IMAGE_PROVIDER: 'instant',
  OPENAI_API_KEY: openai.apiKey,
  OPENAI_BASE_URL: openai.baseUrl,
  MODERATION_TIMEOUT_MS: '500',
  OWNER_EMAIL: 'owner@pawtrait.test',
})
afterAll(() => openai.close())
beforeEach(() => {
  openai.moderation.flag({})
  openai.moderation.fail('none')
  openai.moderation.requests.length = 0
})

const skipped = async (reason: string) =>
  (await getMetrics().moderationSkipped.get()).values.find((value) => value.labels.reason === reason)?.value ?? 0

const customize = (prompt: string) => ({ mode: 'customize', prompt })

test('a flagged description: 422 naming the category, nothing charged, no task, no file, no provider call', async () => {
  openai.moderation.flag({ text: ['violence'] })
  const { user, token } = await createTestUser({ credits: 10 })
  const answer = await submitGeneration(token, [photoFile(await petPhoto())], customize('My dog fighting a bear'))
  expect(answer).toEqual({
    status: 422,
    body: { message: 'This description was flagged for violence; please change it' },
  })
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 10, ledgerSum: 10 })
  expect(await tasksOf(user.id)).toEqual([])
  expect(media.taskFiles()).toEqual([])
  expect(openai.requests).toEqual([])
  // What was asked: the typed text as text, the photo as a JPEG data URL, with omni-moderation-latest.
  expect(openai.moderation.requests).toEqual(
    expect.arrayContaining([
      { model: 'omni-moderation-latest', texts: ['My dog fighting a bear'], images: [] },
      { model: 'omni-moderation-latest', texts: [], images: [expect.objectContaining({ mimeType: 'image/jpeg' })] },
    ]),
  )
})

test('several flagged categories read as plain words; the guided fields are moderated too', async () => {
  openai.moderation.flag({ text: ['hate', 'harassment/threatening', 'violence/graphic'] })
  const { user, token } = await createTestUser({ credits: 10 })
  const answer = await submitGeneration(token, [photoFile(await petPhoto())], { mode: 'guide', action: 'something' })
  expect(answer).toEqual({
    status: 422,
    body: { message: 'This description was flagged for threats, hate and graphic violence; please change it' },
  })
  expect(openai.moderation.requests.find((request) => request.texts.length > 0)?.texts).toEqual(['something'])
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 10, ledgerSum: 10 })
})

test('without JavaScript, /generate shows a flagged description above the form and a flagged photo beside it', async () => {
  const { token } = await createTestUser({ credits: 10 })
  const post = async (fields: Record<string, string>) => {
    const form = new FormData()
    form.append('images', photoFile(await petPhoto()))
    for (const [name, value] of Object.entries({ style: 'general', ...fields })) form.append(name, value)
    const response = await callRoute(generatePage, makeRequest('/generate', { method: 'POST', token, body: form }))
    return {
      status: response.status,
      error: ((await response.json()) as { result: { error: Record<string, string[]> } }).result.error,
    }
  }
  openai.moderation.flag({ text: ['violence'] })
  expect(await post({ mode: 'guide', background: 'a battlefield' })).toEqual({
    status: 422,
    error: { '': ['This description was flagged for violence; please change it'] },
  })
  openai.moderation.flag({ image: ['violence'] })
  expect(await post({ mode: 'guide' })).toEqual({
    status: 422,
    error: { images: ['This photo was flagged for violence; please choose another'] },
  })
})

test('a flagged photo: 422 "This photo was flagged", nothing charged; a text-only category does not count on a photo', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  openai.moderation.flag({ image: ['sexual'] })
  const flagged = await submitGeneration(token, [photoFile(await petPhoto())])
  expect(flagged).toEqual({
    status: 422,
    body: { message: 'This photo was flagged for sexual content; please choose another', field: 'images' },
  })
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 10, ledgerSum: 10 })
  expect(await tasksOf(user.id)).toEqual([])

  // 'hate' is scored on text only: the fake's answer never applies it to an image.
  openai.moderation.flag({ image: ['hate'] })
  expect((await submitGeneration(token, [photoFile(await petPhoto('#806040'))])).status).toBe(200)
})

test('an unflagged submission is moderated and goes on: charged once, queued', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  const answer = await submitGeneration(token, [photoFile(await petPhoto())], customize('Wearing a tiny crown'))
  expect(answer).toMatchObject({ status: 200, body: { status: 'queued' } })
  expect(await tasksOf(user.id)).toHaveLength(1)
  expect(openai.moderation.requests.map((request) => request.texts)).toContainEqual(['Wearing a tiny crown'])
})

// An outage of moderation never blocks work; a 429 (our own volume) does: paid-calls-after-checks.test.ts.
test.each([
  ['server_error', 'server_error'],
  ['hang', 'timeout'],
] as const)('moderation answering %s: the submission goes on, the skip is counted as %s', async (failure, reason) => {
  openai.moderation.fail(failure)
  const before = await skipped(reason)
  const { user, token } = await createTestUser({ credits: 10 })
  const started = Date.now()
  const answer = await submitGeneration(token, [photoFile(await petPhoto())], customize('A pirate hat'))
  expect(answer).toMatchObject({ status: 200, body: { status: 'queued' } })
  expect(await tasksOf(user.id)).toHaveLength(1)
  // Two calls (the text and the photo), both skipped; a hung call is given up after MODERATION_TIMEOUT_MS.
  expect(await skipped(reason)).toBe(before + 2)
  expect(Date.now() - started).toBeLessThan(5_000)
})

test('a flagged video prompt: 422, nothing charged', async () => {
  openai.moderation.flag({ text: ['self-harm/intent'] })
  const { user, token } = await createTestUser({ role: 'superadmin', credits: 100 })
  const answer = await submitVideo(token, { mode: 'text', prompt: 'A sad cat', aspectRatio: '16:9', quality: 'stable' })
  expect(answer).toEqual({
    status: 422,
    body: { message: 'This description was flagged for self-harm; please change it' },
  })
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 100, ledgerSum: 100 })
  expect(await tasksOf(user.id)).toEqual([])
})

test('a flagged template prompt is refused to the admin; the template is not stored', async () => {
  openai.moderation.flag({ text: ['illicit'] })
  const admin = await createTestUser({ role: 'admin' })
  const image = await sharp({ create: { width: 900, height: 900, channels: 3, background: '#5080a0' } })
    .png()
    .toBuffer()
  const form = new FormData()
  form.append('image', photoFile(image, 'template.png', 'image/png'))
  form.append('style', 'travel')
  form.append('templatePrompt', 'How to steal a car')
  const response = await callRoute(
    updateCase,
    makeRequest('/api/image/update-case', { token: admin.token, body: form }),
  )
  expect(response.status).toBe(422)
  expect(await response.json()).toEqual({
    message: 'This description was flagged for illegal activity; please change it',
  })
  const { count } = await getDb()
    .selectFrom('templates')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow()
  expect(Number(count)).toBe(0)
})

test("a likeness fix's flagged note: 422, no fix task, no free fix used", async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
  await sql`UPDATE generation_tasks SET status = 'completed', result_key = input_keys[1] WHERE id = ${body.taskId}`.execute(
    getDb(),
  )
  openai.moderation.flag({ text: ['harassment'] })
  const response = await callRoute(
    fixAction,
    makeRequest(`/api/async-image/task/${body.taskId}/fix`, {
      method: 'POST',
      token,
      json: { reasons: ['ears'], note: 'Make him look stupid' },
    }),
    { id: body.taskId },
  )
  expect(response.status).toBe(422)
  expect(await response.json()).toEqual({ message: 'This description was flagged for harassment; please change it' })
  expect(await tasksOf(user.id)).toHaveLength(1)
})
