/**
 * The fakes refuse what the real services refuse (from their documentation): a model that does not
 * exist, a bad key in each API's own way, and the parameter combinations Veo 3.1 does not make.
 */
import { GEMINI_MAX_INPUT_IMAGES, startGeminiFake, type GeminiFake } from '#tests/fakes/gemini.ts'
import { mostInAnyWindow } from '#tests/fakes/image-api-fake.ts'
import { OPENAI_MAX_EDIT_IMAGES, startOpenAiFake, type OpenAiFake } from '#tests/fakes/openai.ts'
import { startFakeVeo, type FakeVeo } from '#tests/fakes/veo.ts'

let openai: OpenAiFake
let gemini: GeminiFake
let veo: FakeVeo

beforeAll(async () => {
  ;[openai, gemini, veo] = await Promise.all([startOpenAiFake({ rpm: 1 }), startGeminiFake(), startFakeVeo()])
})
afterAll(async () => {
  await Promise.all([openai.close(), gemini.close(), veo.close()])
})

async function call(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init)
  return { status: response.status, body: await response.json() }
}

function editForm(model: string, size = '1024x1024', images = 1) {
  const form = new FormData()
  form.append('model', model)
  form.append('prompt', 'A corgi')
  form.append('size', size)
  for (let i = 0; i < images; i++) {
    form.append('image[]', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), `pet-${i}.png`)
  }
  return form
}

describe('the OpenAI fake', () => {
  const auth = () => ({ authorization: `Bearer ${openai.apiKey}` })

  it('looks models up, answering 404 model_not_found for a retired one', async () => {
    expect(await call(`${openai.baseUrl}/models/gpt-image-2`, { headers: auth() })).toMatchObject({
      status: 200,
      body: { id: 'gpt-image-2', object: 'model' },
    })
    expect(await call(`${openai.baseUrl}/models/gpt-image-1`, { headers: auth() })).toMatchObject({
      status: 404,
      body: { error: { code: 'model_not_found', type: 'invalid_request_error' } },
    })
    expect(await call(`${openai.baseUrl}/models/gpt-image-2`)).toMatchObject({
      status: 401,
      body: { error: { code: 'invalid_api_key' } },
    })
  })

  it('refuses an edit with an unknown model or size, and beyond its rate limit answers 429 with retry-after', async () => {
    const edit = (form: FormData) =>
      fetch(`${openai.baseUrl}/images/edits`, { method: 'POST', headers: auth(), body: form })
    expect((await edit(editForm('dall-e-3'))).status).toBe(404)
    // gpt-image-2 takes free-form sizes, but both edges must be multiples of 16 (decision 0035).
    const badSize = await edit(editForm('gpt-image-2', '1000x1000'))
    expect(badSize.status).toBe(400)
    expect((await badSize.json()).error).toMatchObject({ code: 'invalid_value', param: 'size' })
    const tooMany = await edit(editForm('gpt-image-2', '1024x1024', OPENAI_MAX_EDIT_IMAGES + 1))
    expect(tooMany.status).toBe(400)
    expect((await tooMany.json()).error).toMatchObject({ code: 'array_above_max_length', param: 'image' })

    expect((await edit(editForm('gpt-image-2'))).status).toBe(200)
    const limited = await edit(editForm('gpt-image-2'))
    expect(limited.status).toBe(429)
    // Room comes back when the one request admitted leaves the sliding minute.
    expect(limited.headers.get('retry-after')).toBe('60')
    expect(limited.headers.get('x-ratelimit-limit-requests')).toBe('1')
    expect(limited.headers.get('x-ratelimit-remaining-requests')).toBe('0')
    expect(limited.headers.get('x-ratelimit-reset-requests')).toMatch(/^(5\d(\.\d+)?s|1m0s)$/)
    expect((await limited.json()).error.code).toBe('rate_limit_exceeded')
    expect(openai.rateLimited()).toBe(1)
    expect(mostInAnyWindow(openai.arrivals)).toBe(2)
  })
})

describe('the Gemini fake', () => {
  it('looks models up and answers a bad key with 400 API_KEY_INVALID, an unknown model with 404', async () => {
    const key = { 'x-goog-api-key': gemini.apiKey }
    expect(await call(`${gemini.baseUrl}/v1beta/models/gemini-3.1-flash-image`, { headers: key })).toMatchObject({
      status: 200,
      body: { name: 'models/gemini-3.1-flash-image' },
    })
    const bad = await call(`${gemini.baseUrl}/v1beta/models/gemini-3.1-flash-image`, {
      headers: { 'x-goog-api-key': 'nope' },
    })
    expect(bad).toMatchObject({ status: 400, body: { error: { status: 'INVALID_ARGUMENT' } } })
    expect(bad.body.error.details[0]).toMatchObject({ reason: 'API_KEY_INVALID' })
    const retired = await call(`${gemini.baseUrl}/v1beta/models/gemini-2.5-flash-image:generateContent`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    })
    expect(retired).toMatchObject({ status: 404, body: { error: { status: 'NOT_FOUND' } } })
  })

  it('takes up to 14 input images a request and refuses more with 400 INVALID_ARGUMENT', async () => {
    const generate = (images: number) =>
      call(`${gemini.baseUrl}/v1beta/models/gemini-3.1-flash-image:generateContent`, {
        method: 'POST',
        headers: { 'x-goog-api-key': gemini.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          contents: [
            {
              parts: [
                { text: 'A corgi' },
                ...Array.from({ length: images }, () => ({ inline_data: { mime_type: 'image/png', data: 'AQID' } })),
              ],
            },
          ],
        }),
      })
    expect((await generate(GEMINI_MAX_INPUT_IMAGES)).status).toBe(200)
    expect(await generate(GEMINI_MAX_INPUT_IMAGES + 1)).toMatchObject({
      status: 400,
      body: { error: { status: 'INVALID_ARGUMENT' } },
    })
  })
})

describe('the Veo fake', () => {
  const start = (model: string, parameters: Record<string, unknown>) =>
    call(`${veo.baseUrl}/v1beta/models/${model}:predictLongRunning`, {
      method: 'POST',
      headers: { 'x-goog-api-key': veo.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ instances: [{ prompt: 'A dog' }], parameters }),
    })

  it.each([
    ['1080p shorter than 8 s', { resolution: '1080p', durationSeconds: 4 }],
    ['4k shorter than 8 s', { aspectRatio: '9:16', resolution: '4k', durationSeconds: 6 }],
    ['an unknown aspect ratio', { aspectRatio: '1:1' }],
    ['an unknown resolution', { resolution: '1280p' }],
    ['an unknown duration', { durationSeconds: 5 }],
  ])('refuses %s with 400 INVALID_ARGUMENT', async (_name, parameters) => {
    for (const model of ['veo-3.1-generate-preview', 'veo-3.1-fast-generate-preview']) {
      expect(await start(model, parameters)).toMatchObject({
        status: 400,
        body: { error: { status: 'INVALID_ARGUMENT' } },
      })
    }
  })

  it('starts 1080p at its default 8 s, in both orientations, and refuses a retired model', async () => {
    expect((await start('veo-3.1-generate-preview', { aspectRatio: '16:9', resolution: '1080p' })).status).toBe(200)
    expect((await start('veo-3.1-fast-generate-preview', { aspectRatio: '9:16', resolution: '1080p' })).status).toBe(
      200,
    )
    expect(await start('veo-3.0-generate-001', {})).toMatchObject({
      status: 404,
      body: { error: { status: 'NOT_FOUND' } },
    })
  })
})
