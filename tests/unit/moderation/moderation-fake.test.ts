/**
 * The OpenAI fake's moderation endpoint follows the documented request and answer (refusing a bad
 * key, an unknown model and malformed input as the real API does), and the answer reads as
 * domain/moderation/moderation-answer.ts expects: flagged categories, in plain words, only those
 * scored on the input's own type.
 */
import { categoryWords, flaggedCategories, moderationAnswerSchema } from '#domain/moderation/moderation-answer.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'

const openai = await startOpenAiFake()
afterAll(() => openai.close())
beforeEach(() => openai.moderation.flag({}))

const jpegDataUrl = `data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, 0xff, 0xd9]).toString('base64')}`

async function moderate(body: unknown, key = openai.apiKey) {
  const response = await fetch(`${openai.baseUrl}/moderations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

test('a text answers one result with every category, its score and the input types it applied to', async () => {
  openai.moderation.flag({ text: ['violence'] })
  const { status, body } = await moderate({ model: 'omni-moderation-latest', input: 'A dog biting a man' })
  expect(status).toBe(200)
  expect(body).toMatchObject({ id: expect.stringMatching(/^modr-/), model: 'omni-moderation-2024-09-26' })
  const answer = moderationAnswerSchema.parse(body)
  expect(answer.results).toHaveLength(1)
  expect(answer.results[0]).toMatchObject({
    flagged: true,
    categories: { violence: true, hate: false, 'sexual/minors': false },
    category_applied_input_types: { violence: ['text'], hate: ['text'] },
  })
  expect(flaggedCategories(answer, 'text')).toEqual(['violence'])
})

test('an image is scored only on the image-capable categories', async () => {
  openai.moderation.flag({ image: ['violence/graphic', 'sexual'] })
  const { body } = await moderate({
    model: 'omni-moderation-latest',
    input: [{ type: 'image_url', image_url: { url: jpegDataUrl } }],
  })
  const answer = moderationAnswerSchema.parse(body)
  expect(answer.results[0].category_applied_input_types).toMatchObject({ hate: [], violence: ['image'] })
  expect(flaggedCategories(answer, 'image')).toEqual(['sexual', 'violence/graphic'])
  expect(categoryWords(flaggedCategories(answer, 'image'))).toBe('sexual content and graphic violence')
  expect(openai.moderation.requests.at(-1)).toMatchObject({ texts: [], images: [{ mimeType: 'image/jpeg' }] })
})

test('an array of strings answers one result per string', async () => {
  const { body } = await moderate({ input: ['one', 'two'] })
  expect((body.results as unknown[]).length).toBe(2)
})

test.each([
  ['a bad key', { model: 'omni-moderation-latest', input: 'x' }, 'sk-wrong', 401, 'invalid_api_key'],
  ['an unknown model', { model: 'omni-moderation-9', input: 'x' }, undefined, 404, 'model_not_found'],
  ['no input', { model: 'omni-moderation-latest' }, undefined, 400, 'missing_required_parameter'],
  ['an input of the wrong type', { input: 42 }, undefined, 400, 'invalid_type'],
  ['an unknown part type', { input: [{ type: 'audio', audio: 'x' }] }, undefined, 400, 'invalid_value'],
  [
    'an image that is no data URL',
    { input: [{ type: 'image_url', image_url: { url: 'file:///x.png' } }] },
    undefined,
    400,
    'invalid_value',
  ],
  [
    'an image to a text-only model',
    { model: 'text-moderation-latest', input: [{ type: 'image_url', image_url: { url: jpegDataUrl } }] },
    undefined,
    400,
    'invalid_value',
  ],
])('refuses %s', async (_name, body, key, status, code) => {
  const answer = await moderate(body, key)
  expect(answer.status).toBe(status)
  expect(answer.body).toMatchObject({ error: { code } })
})

test('words: one category, several, duplicates and a category added later', () => {
  expect(categoryWords(['violence'])).toBe('violence')
  expect(categoryWords(['self-harm', 'self-harm/intent'])).toBe('self-harm')
  expect(categoryWords(['hate', 'illicit', 'harassment'])).toBe('hate, illegal activity and harassment')
  expect(categoryWords(['new/thing'])).toBe('new thing')
})
