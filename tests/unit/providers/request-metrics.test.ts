import { getMetrics } from '#platform/metrics.server.ts'
import { createOpenAiImageProvider } from '#worker/providers/image/openai.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { imageRequest, providerFailure, testContext } from './image-fixtures.ts'

// Every provider call is counted in pawtrait_provider_requests_total by what came back: an HTTP
// status (429s too), or `timeout` / `network` when nothing did.
const fake = await startOpenAiFake({ slowMs: 3_000 })
afterAll(() => fake.close())

const openai = (timeoutMs = 5_000) =>
  createOpenAiImageProvider({ apiKey: fake.apiKey, baseUrl: fake.baseUrl, timeoutMs })

async function counts() {
  const { values } = await getMetrics().providerRequests.get()
  return Object.fromEntries(values.map((value) => [`${value.labels.provider} ${value.labels.status}`, value.value]))
}

test('statuses, 429s and timeouts are counted per provider; a content refusal is marked refused', async () => {
  await openai().generate(await imageRequest(), testContext())
  fake.setMode('rate_limit_once')
  expect((await providerFailure(openai().generate(await imageRequest(), testContext()))).retryable).toBe(true)
  fake.setMode('moderation')
  expect((await providerFailure(openai().generate(await imageRequest(), testContext()))).refused).toBe(true)
  fake.setMode('server_error')
  expect((await providerFailure(openai().generate(await imageRequest(), testContext()))).refused).toBe(false)
  fake.setMode('slow')
  await providerFailure(openai(200).generate(await imageRequest(), testContext()))

  expect(await counts()).toEqual({
    'openai 200': 1,
    'openai 429': 1,
    'openai 400': 1,
    'openai 500': 1,
    'openai timeout': 1,
  })
})

test('a service that cannot be reached is counted as network', async () => {
  const unreachable = createOpenAiImageProvider({
    apiKey: 'sk-test',
    baseUrl: 'http://127.0.0.1:9/v1',
    timeoutMs: 2_000,
  })
  await providerFailure(unreachable.generate(await imageRequest(), testContext()))
  expect((await counts())['openai network']).toBe(1)
})
