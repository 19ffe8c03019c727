import { recordProviderCheck } from '#domain/generation/provider-checks.server.ts'
import { failTask } from '#domain/generation/task-states.server.ts'
import { recordWorkerAlive } from '#domain/operator/worker-processes.server.ts'
import { loader } from '#app/routes/system-status.tsx'
import { getDb } from '#platform/db.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { petPhoto, photoFile, submitGeneration, withOwnDataDir } from '#tests/helpers/generation.ts'

withOwnDataDir()
const db = getDb()

async function submitted(token: string) {
  const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
  return body.taskId as string
}

const statusAs = (token?: string) => callRoute(loader, makeRequest('/system-status', { token }))

test("a superadmin sees the queue, a failed task's reason, provider checks, live workers and the deployment", async () => {
  const { token } = await createTestUser({ credits: 10 })
  const failed = await submitted(token)
  await submitted(token)
  await db
    .transaction()
    .execute((tx) => failTask(tx, failed, 'OpenAI is receiving too many requests right now (HTTP 429).'))
  await recordProviderCheck(db, { provider: 'openai', model: 'gpt-image-1', ok: false, detail: 'HTTP 401: bad key' })
  await recordWorkerAlive(db, { id: 'machine-1:42', hostname: 'machine-1', pid: 42, version: 'v-test', concurrency: 2 })
  await db
    .insertInto('worker_processes')
    .values({
      id: 'gone:7',
      hostname: 'gone',
      pid: 7,
      version: 'old',
      concurrency: 2,
      seen_at: new Date(Date.now() - 120_000),
    })
    .execute()

  const admin = await createTestUser({ role: 'superadmin' })
  const response = await statusAs(admin.token)
  expect(response.status).toBe(200)
  const status = await response.json()
  expect(status.tasks).toEqual([
    {
      kind: 'image',
      queued: 1,
      running: 0,
      completedLastHour: 0,
      failedLastHour: 1,
      completedLastDay: 0,
      failedLastDay: 1,
    },
    {
      kind: 'video',
      queued: 0,
      running: 0,
      completedLastHour: 0,
      failedLastHour: 0,
      completedLastDay: 0,
      failedLastDay: 0,
    },
  ])
  expect(status.failureReasons).toEqual([
    { reason: 'OpenAI is receiving too many requests right now (HTTP 429).', count: 1 },
  ])
  expect(status.providers).toMatchObject([
    { provider: 'openai', model: 'gpt-image-1', ok: false, detail: 'HTTP 401: bad key' },
  ])
  expect(status.workers.map((worker: { id: string }) => worker.id)).toEqual(['machine-1:42'])
  expect(status.storage).toEqual({ driver: 'local', location: `${process.env.DATA_DIR}/media` })
  expect(status.version).toBe('development')
  expect(status.moderation).toEqual({
    on: false,
    summary: 'off (no OPENAI_API_KEY): prompts and photos are not moderated',
  })
})

test('every other role is refused: guests to the login page, users and admins to the home page', async () => {
  const guest = await statusAs()
  expect(guest.status).toBe(302)
  expect(guest.headers.get('location')).toMatch(/^\/login/)
  for (const role of ['user', 'admin'] as const) {
    const { token } = await createTestUser({ role })
    const refused = await statusAs(token)
    expect(refused.status).toBe(302)
    expect(refused.headers.get('location')).toBe('/')
  }
})

test('a failure reason or a provider check holding a URL is shown without its query string', async () => {
  const { token } = await createTestUser({ credits: 10 })
  const failed = await submitted(token)
  const reason = 'Could not download https://bucket.example/result.png?X-Amz-Signature=signed-secret (HTTP 403).'
  await db.transaction().execute((tx) => failTask(tx, failed, reason))
  const detail = 'HTTP 400 from https://api.example/v1/models?key=provider-secret'
  await recordProviderCheck(db, { provider: 'gemini', model: 'imagen', ok: false, detail })
  const admin = await createTestUser({ role: 'superadmin' })
  const status = await (await statusAs(admin.token)).json()
  expect(status.failureReasons).toContainEqual({
    reason: 'Could not download https://bucket.example/result.png (HTTP 403).',
    count: 1,
  })
  expect(JSON.stringify(status)).not.toMatch(/signed-secret|provider-secret/)
})
