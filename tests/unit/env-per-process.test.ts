import os from 'node:os'
import { parseEnv } from '#platform/env.server.ts'
import { parseWorkerEnv } from '#worker/env.ts'

const base = { DATA_DIR: 'tests/.tmp/data' }
const remoteProviders = { ...base, IMAGE_PROVIDER: 'openai', VIDEO_PROVIDER: 'veo' }

test('the shared variables need no provider key: the web names the providers (and checks photos with a key it may have), the worker calls them', () => {
  const env = parseEnv(remoteProviders)
  expect(env).toMatchObject({ IMAGE_PROVIDER: 'openai', VIDEO_PROVIDER: 'veo', IMAGE_CONCURRENCY: 16 })
  expect(env.OPENAI_API_KEY).toBeUndefined()
  expect(env).not.toHaveProperty('WORKER_CONCURRENCY')
})

test('the worker validates its own variables on top of the shared ones', () => {
  expect(() => parseWorkerEnv(remoteProviders)).toThrow(/OPENAI_API_KEY[\s\S]*GEMINI_API_KEY/)
  expect(() => parseWorkerEnv({ ...base, PORT: 'eighty' })).toThrow(/PORT/)
  const env = parseWorkerEnv({ ...remoteProviders, OPENAI_API_KEY: 'k', GEMINI_API_KEY: 'g' })
  expect(env).toMatchObject({
    OPENAI_API_KEY: 'k',
    WORKER_CONCURRENCY: 2,
    TASK_STALL_MS: 60_000,
    IMAGE_CONCURRENCY: 16,
  })
})

test("UPSCALE_THREADS: the machine's cores by default, a positive whole number when set", () => {
  expect(parseWorkerEnv(base).UPSCALE_THREADS).toBe(os.availableParallelism())
  expect(parseWorkerEnv({ ...base, UPSCALE_THREADS: '3' }).UPSCALE_THREADS).toBe(3)
  expect(() => parseWorkerEnv({ ...base, UPSCALE_THREADS: '0' })).toThrow(/UPSCALE_THREADS/)
  expect(() => parseWorkerEnv({ ...base, UPSCALE_THREADS: 'all' })).toThrow(/UPSCALE_THREADS/)
})
