import { action as accountAction } from '#app/routes/api.auth.account.ts'
import { getDb } from '#platform/db.server.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { petPhoto, photoFile, submitGeneration, withOwnDataDir } from '#tests/helpers/generation.ts'
import { queuedJobs } from '#tests/helpers/jobs.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

// The real worker process on this file's database and media folder, and a provider slow enough
// that the account is deleted while its portrait is being made.
const media = withOwnDataDir()
const openai = await startOpenAiFake({ latencyMs: 3_000 })
afterAll(() => openai.close())

test('a portrait that finishes after its account was deleted leaves no file and no row', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  const worker = startWorker({
    IMAGE_PROVIDER: 'openai',
    OPENAI_BASE_URL: openai.baseUrl,
    OPENAI_API_KEY: openai.apiKey,
  })
  try {
    await worker.ready()
    const { status, body } = await submitGeneration(token, [photoFile(await petPhoto('#7a4a2b'))])
    expect(status).toBe(200)
    const taskId = body.taskId as string
    const db = getDb()
    await waitFor(
      async () =>
        (await db.selectFrom('generation_tasks').select('status').where('id', '=', taskId).executeTakeFirst())
          ?.status === 'processing' && openai.requests.length > 0,
      { timeout: 20_000 },
    )

    const deleted = await callRoute(
      accountAction,
      makeRequest('/api/auth/account', {
        method: 'DELETE',
        token,
        json: { password: 'password123', confirmation: 'DELETE' },
      }),
    )
    expect(deleted.status).toBe(200)
    expect(media.taskFiles().filter((key) => key.startsWith(`tasks/${taskId}/`))).toEqual([])

    // The provider answers after the deletion; the worker's job then ends.
    await waitFor(async () => (await queuedJobs('generate_image')).length === 0, { timeout: 30_000 })
    expect(worker.output.join('')).not.toMatch(/Error/)
    expect(media.taskFiles().filter((key) => key.startsWith(`tasks/${taskId}/`))).toEqual([])
    expect(await db.selectFrom('generation_tasks').select('id').where('user_id', '=', user.id).execute()).toEqual([])
    expect(await db.selectFrom('task_versions').select('key').where('task_id', '=', taskId).execute()).toEqual([])
  } finally {
    await worker.stop()
  }
})
