import { spawn } from 'node:child_process'
import { listProviderChecks } from '#domain/generation/provider-checks.server.ts'
import { getDb } from '#platform/db.server.ts'
import { startGeminiFake, type GeminiFake } from '#tests/fakes/gemini.ts'
import { startOpenAiFake, type OpenAiFake } from '#tests/fakes/openai.ts'
import { startFakeVeo, type FakeVeo } from '#tests/fakes/veo.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

const db = getDb()
let openai: OpenAiFake
let gemini: GeminiFake
let veo: FakeVeo

beforeAll(async () => {
  ;[openai, gemini, veo] = await Promise.all([startOpenAiFake(), startGeminiFake(), startFakeVeo()])
})
afterAll(async () => {
  await Promise.all([openai.close(), gemini.close(), veo.close()])
})

/** Runs `npm run providers:check`'s script with this environment; answers its exit code and output. */
function providersCheck(env: Record<string, string>) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, ['scripts/providers-check.ts'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.once('exit', (code) => resolve({ code, output }))
  })
}

const openaiEnv = () => ({ IMAGE_PROVIDER: 'openai', OPENAI_API_KEY: openai.apiKey, OPENAI_BASE_URL: openai.baseUrl })

test('with working keys and current models: one ok line per provider, exit 0, results recorded', async () => {
  const { code, output } = await providersCheck({
    ...openaiEnv(),
    VIDEO_PROVIDER: 'veo',
    GEMINI_API_KEY: veo.apiKey,
    GEMINI_BASE_URL: veo.baseUrl,
  })
  expect(code).toBe(0)
  const lines = output.trim().split('\n')
  expect(lines).toEqual([
    '[providers] openai (gpt-image-2): ok, the key works and the model exists',
    '[providers] veo (veo-3.1-generate-preview): ok, the key works and the model exists',
    '[providers] veo-fast (veo-3.1-fast-generate-preview): ok, the key works and the model exists',
  ])
  expect((await listProviderChecks(db)).map(({ provider, model, ok }) => ({ provider, model, ok }))).toEqual([
    { provider: 'openai', model: 'gpt-image-2', ok: true },
    { provider: 'veo', model: 'veo-3.1-generate-preview', ok: true },
    { provider: 'veo-fast', model: 'veo-3.1-fast-generate-preview', ok: true },
  ])
})

test('a retired model or a bad key: a clear line each, exit 1, the failure recorded, no key printed', async () => {
  const { code, output } = await providersCheck({
    ...openaiEnv(),
    OPENAI_IMAGE_MODEL: 'gpt-image-1',
    VIDEO_PROVIDER: 'local',
  })
  expect(code).toBe(1)
  expect(output).toContain('[providers] openai (gpt-image-1): FAILED, the model gpt-image-1 does not exist (HTTP 404)')

  const badKey = await providersCheck({
    IMAGE_PROVIDER: 'gemini',
    GEMINI_API_KEY: 'not-the-right-key',
    GEMINI_BASE_URL: gemini.baseUrl,
  })
  expect(badKey.code).toBe(1)
  expect(badKey.output).toContain(
    "[providers] gemini (gemini-3.1-flash-image): FAILED, Gemini refused this server's credentials (HTTP 400, API_KEY_INVALID)",
  )
  expect(badKey.output).not.toContain('not-the-right-key')
  const checks = await listProviderChecks(db)
  expect(checks.find((check) => check.provider === 'openai')).toMatchObject({ ok: false, model: 'gpt-image-1' })
  expect(checks.find((check) => check.provider === 'gemini')).toMatchObject({ ok: false })
})

test('the worker checks at start-up, logs a failure at error level, and keeps running', async () => {
  const worker = startWorker({ ...openaiEnv(), OPENAI_IMAGE_MODEL: 'gpt-image-0' })
  try {
    await worker.ready()
    await waitFor(() => worker.output.join('').includes('[providers] openai (gpt-image-0): FAILED'))
    expect(worker.child.exitCode).toBeNull()
    expect((await listProviderChecks(db)).find((check) => check.provider === 'openai')).toMatchObject({
      ok: false,
      model: 'gpt-image-0',
    })
  } finally {
    expect(await worker.stop()).toBe(0)
  }
})
