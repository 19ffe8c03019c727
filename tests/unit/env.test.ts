import { parseWorkerEnv as parseEnv } from '#worker/env.ts'

const base = { DATA_DIR: 'tests/.tmp/data' }

test('defaults apply when variables are absent', () => {
  const env = parseEnv({ ...base })
  expect(env.PORT).toBe(3000)
  expect(env.IMAGE_PROVIDER).toBe('local')
  expect(env.SESSION_SECRET).toMatch(/^[0-9a-f]{64}$/)
})

test('a malformed variable stops start-up with a message naming it', () => {
  expect(() => parseEnv({ ...base, PORT: 'eighty' })).toThrow(/PORT/)
  expect(() => parseEnv({ ...base, DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL/)
  expect(() => parseEnv({ ...base, WORKER_CONCURRENCY: '0' })).toThrow(/WORKER_CONCURRENCY/)
})

test('production needs a session secret, and providers need their keys', () => {
  expect(() => parseEnv({ ...base, NODE_ENV: 'production' })).toThrow(/SESSION_SECRET: is required in production/)
  expect(() => parseEnv({ ...base, IMAGE_PROVIDER: 'openai' })).toThrow(/OPENAI_API_KEY/)
  expect(() => parseEnv({ ...base, VIDEO_PROVIDER: 'veo' })).toThrow(/GEMINI_API_KEY/)
})

test('production needs PUBLIC_URL; elsewhere it may be unset, and CSP_REPORTS_MAX_PER_HOUR defaults to 1000', () => {
  const production = { ...base, NODE_ENV: 'production', SESSION_SECRET: 's' }
  expect(() => parseEnv(production)).toThrow(/PUBLIC_URL: is required in production/)
  expect(parseEnv({ ...production, PUBLIC_URL: 'https://pawtrait.example' }).PUBLIC_URL).toBe(
    'https://pawtrait.example',
  )
  expect(parseEnv({ ...base }).PUBLIC_URL).toBeUndefined()
  expect(parseEnv({ ...base }).CSP_REPORTS_MAX_PER_HOUR).toBe(1000)
  expect(() => parseEnv({ ...base, CSP_REPORTS_MAX_PER_HOUR: '0' })).toThrow(/CSP_REPORTS_MAX_PER_HOUR/)
})

test("Tigris's variable names are accepted for S3 storage", () => {
  const env = parseEnv({
    ...base,
    STORAGE_DRIVER: 's3',
    BUCKET_NAME: 'pets',
    AWS_ENDPOINT_URL_S3: 'https://fly.storage.tigris.dev',
  })
  expect(env.S3_BUCKET).toBe('pets')
  expect(env.S3_ENDPOINT).toBe('https://fly.storage.tigris.dev')
})
