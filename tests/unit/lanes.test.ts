import { parseWorkerEnv as parseEnv } from '#worker/env.ts'
import { lanes } from '#worker/lanes.ts'

const base = { DATA_DIR: 'tests/.tmp/data' }

test('generation slots: 2 with the local renderers, 16 images and 8 videos with remote providers, or as set', () => {
  expect(parseEnv(base)).toMatchObject({ IMAGE_CONCURRENCY: 2, VIDEO_CONCURRENCY: 2 })
  const remote = parseEnv({
    ...base,
    IMAGE_PROVIDER: 'openai',
    OPENAI_API_KEY: 'k',
    VIDEO_PROVIDER: 'veo',
    GEMINI_API_KEY: 'g',
  })
  expect(remote).toMatchObject({ IMAGE_CONCURRENCY: 16, VIDEO_CONCURRENCY: 8 })
  expect(parseEnv({ ...base, IMAGE_CONCURRENCY: '40', VIDEO_CONCURRENCY: '3' })).toMatchObject({
    IMAGE_CONCURRENCY: 40,
    VIDEO_CONCURRENCY: 3,
  })
  expect(() => parseEnv({ ...base, IMAGE_CONCURRENCY: '0' })).toThrow(/IMAGE_CONCURRENCY/)
})

test('limits and waits: no rate limit unless set, 15 minutes of waiting, 5 active tasks per user, 300 s per image call', () => {
  const env = parseEnv(base)
  expect(env.IMAGE_PROVIDER_RPM).toBeUndefined()
  expect(env.VIDEO_PROVIDER_RPM).toBeUndefined()
  expect(env).toMatchObject({
    TASK_MAX_WAIT_MS: 900_000,
    MAX_ACTIVE_TASKS_PER_USER: 5,
    PROVIDER_TIMEOUT_MS: 300_000,
  })
  expect(parseEnv({ ...base, IMAGE_PROVIDER_RPM: '120' }).IMAGE_PROVIDER_RPM).toBe(120)
})

test('current models by default', () => {
  expect(parseEnv(base)).toMatchObject({
    OPENAI_IMAGE_MODEL: 'gpt-image-2',
    GEMINI_IMAGE_MODEL: 'gemini-3.1-flash-image',
    VEO_MODEL: 'veo-3.1-generate-preview',
    VEO_FAST_MODEL: 'veo-3.1-fast-generate-preview',
  })
})

test('each lane takes only its own jobs; generation never shares a lane with email or maintenance', () => {
  const [image, video, upscale, background] = lanes({
    IMAGE_CONCURRENCY: 16,
    VIDEO_CONCURRENCY: 8,
    UPSCALE_CONCURRENCY: 1,
    WORKER_CONCURRENCY: 2,
  })
  expect(image).toMatchObject({ name: 'image', concurrency: 16 })
  expect(Object.keys(image.taskList)).toEqual(['generate_image'])
  expect(video).toMatchObject({ name: 'video', concurrency: 8 })
  expect(Object.keys(video.taskList)).toEqual(['generate_video'])
  expect(upscale).toMatchObject({ name: 'upscale', concurrency: 1 })
  expect(Object.keys(upscale.taskList)).toEqual(['upscale_image'])
  expect(background).toMatchObject({ name: 'background', concurrency: 2 })
  expect(Object.keys(background.taskList)).toContain('send_email')
  expect(Object.keys(background.taskList)).not.toContain('generate_image')
  expect(Object.keys(background.taskList)).not.toContain('upscale_image')
  expect(background.crontab).toContain('recover_stalled_tasks')
  expect(image.crontab).toBeUndefined()
})
