/**
 * The vision endpoints of the OpenAI and Gemini fakes follow the providers' documented
 * structured-output wire format (refusing what the real APIs refuse, answering the JSON where the
 * docs put it), and our adapters speak it.
 */
import { askGemini } from '#domain/photo-check/vision-gemini.server.ts'
import { askOpenAi } from '#domain/photo-check/vision-openai.server.ts'
import { visionAnswerJsonSchema } from '#domain/photo-check/vision-answer.ts'
import { startGeminiFake } from '#tests/fakes/gemini.ts'
import { ONE_PET_ANSWER } from '#tests/fakes/image-api-fake.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'

const openai = await startOpenAiFake()
const gemini = await startGeminiFake()
afterAll(async () => {
  await openai.close()
  await gemini.close()
})

const jpegDataUrl = `data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, 0xff, 0xd9]).toString('base64')}`

function chat(body: unknown, key = openai.apiKey) {
  return fetch(`${openai.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

const userImage = (image: unknown) => [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Is there a pet?' },
      { type: 'image_url', image_url: image },
    ],
  },
]
const structured = (schema: unknown = visionAnswerJsonSchema) => ({
  type: 'json_schema',
  json_schema: { name: 'pet_photo_check', strict: true, schema },
})

describe('OpenAI Chat Completions with image input and Structured Outputs', () => {
  test('answers a chat.completion whose choices[0].message.content is the JSON text', async () => {
    const response = await chat({
      model: 'gpt-6-luna',
      messages: userImage({ url: jpegDataUrl, detail: 'low' }),
      response_format: structured(),
    })
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body).toMatchObject({ object: 'chat.completion', choices: [{ index: 0, finish_reason: 'stop' }] })
    expect(body.choices[0].message).toMatchObject({ role: 'assistant', refusal: null })
    expect(JSON.parse(body.choices[0].message.content)).toEqual(ONE_PET_ANSWER)
  })

  test('refuses a bad key, an unknown model, an image in the wrong shape and a schema strict mode refuses', async () => {
    const good = { model: 'gpt-6-luna', messages: userImage({ url: jpegDataUrl }), response_format: structured() }
    const bad = await chat(good, 'sk-wrong')
    expect(bad.status).toBe(401)
    expect((await bad.json()).error.code).toBe('invalid_api_key')

    const unknown = await chat({ ...good, model: 'gpt-4-vision-preview' })
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).error.code).toBe('model_not_found')

    const asString = await chat({ ...good, messages: userImage(jpegDataUrl) })
    expect(asString.status).toBe(400)
    expect((await asString.json()).error.param).toBe('messages[0].content[1].image_url')

    const notDataUrl = await chat({ ...good, messages: userImage({ url: 'aGVsbG8=' }) })
    expect(notDataUrl.status).toBe(400)

    const loose = await chat({
      ...good,
      response_format: structured({ ...visionAnswerJsonSchema, additionalProperties: true }),
    })
    expect(loose.status).toBe(400)
    expect((await loose.json()).error.message).toMatch(
      /'additionalProperties' is required to be supplied and to be false/,
    )

    const partial = await chat({
      ...good,
      response_format: structured({ ...visionAnswerJsonSchema, required: ['pet_found'] }),
    })
    expect((await partial.json()).error.message).toMatch(/'required' is required .* Missing 'pet_count'/)

    const nameless = await chat({ ...good, response_format: { type: 'json_schema', json_schema: { schema: {} } } })
    expect(nameless.status).toBe(400)
  })

  test('our adapter reads the answer the test set', async () => {
    openai.setVisionAnswer({ ...ONE_PET_ANSWER, species: 'rabbit', problems: ['cropped'] })
    const answer = await askOpenAi(Buffer.from([0xff, 0xd8, 0xff, 0xd9]), {
      apiKey: openai.apiKey,
      baseUrl: openai.baseUrl,
      model: 'gpt-6-luna',
      timeoutMs: 5_000,
    })
    expect(answer).toMatchObject({ species: 'rabbit', problems: ['cropped'] })
  })
})

function generate(model: string, body: unknown, key = gemini.apiKey) {
  return fetch(`${gemini.baseUrl}/v1beta/models/${model}:generateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

const photoParts = (inline: unknown) => [{ role: 'user', parts: [{ text: 'Is there a pet?' }, inline] }]
const jsonConfig = { responseMimeType: 'application/json', responseJsonSchema: visionAnswerJsonSchema }

describe('Gemini generateContent with an inline image and structured output', () => {
  test('answers the JSON text in candidates[0].content.parts[0].text', async () => {
    gemini.setVisionAnswer(ONE_PET_ANSWER)
    const response = await generate('gemini-3.5-flash-lite', {
      contents: photoParts({ inlineData: { mimeType: 'image/jpeg', data: 'aGVsbG8=' } }),
      generationConfig: jsonConfig,
    })
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body.candidates[0]).toMatchObject({ finishReason: 'STOP', content: { role: 'model' } })
    expect(JSON.parse(body.candidates[0].content.parts[0].text)).toEqual(ONE_PET_ANSWER)
  })

  test('refuses a bad key, an unknown model, a schema without the JSON MIME type and a malformed image part', async () => {
    const good = {
      contents: photoParts({ inline_data: { mime_type: 'image/jpeg', data: 'aGVsbG8=' } }),
      generationConfig: jsonConfig,
    }
    expect((await generate('gemini-3.5-flash-lite', good, 'wrong')).status).toBe(400)
    expect((await generate('gemini-1.0-pro-vision', good)).status).toBe(404)

    const textMime = await generate('gemini-3.5-flash-lite', {
      ...good,
      generationConfig: { responseMimeType: 'text/plain', responseJsonSchema: visionAnswerJsonSchema },
    })
    expect(textMime.status).toBe(400)
    expect((await textMime.json()).error.status).toBe('INVALID_ARGUMENT')

    const noMime = await generate('gemini-3.5-flash-lite', {
      ...good,
      contents: photoParts({ inlineData: { data: 'aGVsbG8=' } }),
    })
    expect(noMime.status).toBe(400)
    const bmp = await generate('gemini-3.5-flash-lite', {
      ...good,
      contents: photoParts({ inlineData: { mimeType: 'image/bmp', data: 'aGVsbG8=' } }),
    })
    expect(bmp.status).toBe(400)
  })

  test('our adapter reads the answer the test set', async () => {
    gemini.setVisionAnswer({ ...ONE_PET_ANSWER, pet_count: 2, problems: ['several_pets'] })
    const answer = await askGemini(Buffer.from([0xff, 0xd8, 0xff, 0xd9]), {
      apiKey: gemini.apiKey,
      baseUrl: gemini.baseUrl,
      model: 'gemini-3.5-flash-lite',
      timeoutMs: 5_000,
    })
    expect(answer).toMatchObject({ pet_count: 2, problems: ['several_pets'] })
  })
})
