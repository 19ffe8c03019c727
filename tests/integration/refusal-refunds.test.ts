import type { TaskView } from '#domain/generation/task-view.ts'
import { loader as creditHistory } from '#app/routes/api.image.credit-history.ts'
import { startGeminiFake, type GeminiFakeMode } from '#tests/fakes/gemini.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { readEventStream, type StreamEvent } from '#tests/helpers/event-stream.ts'
import {
  balanceAndLedgerSum,
  petPhoto,
  photoFile,
  refundsOf,
  submitGeneration,
  taskRow,
  withOwnDataDir,
} from '#tests/helpers/generation.ts'
import { jobHelpers } from '#tests/helpers/jobs.ts'
import { startWebProcess } from '#tests/helpers/web-process.ts'
import { startWorker } from '#tests/helpers/worker-process.ts'
import { createGeminiImageProvider } from '#worker/providers/image/gemini.ts'
import { imageGeneration } from '#worker/jobs/generate-image.ts'
import { runGeneration } from '#worker/generation/run-generation.ts'

// No silent refund (issue 33 item 5): a provider's refusal after the run was paid for is refunded
// in full, and the refund line says which version and why, in credit history and on the task,
// live. Each provider refuses in its own shape: OpenAI a 400 `moderation_blocked`, Gemini a 200
// without an image and `finishReason: IMAGE_SAFETY` or `promptFeedback.blockReason`.
withOwnDataDir()
const openai = await startOpenAiFake()
const gemini = await startGeminiFake()
Object.assign(process.env, { OPENAI_API_KEY: openai.apiKey, OPENAI_BASE_URL: openai.baseUrl })
afterAll(() => Promise.all([openai.close(), gemini.close()]))

const DECLINED = 'Refunded: the provider declined this picture (safety)'

async function historyOf(token: string) {
  const response = await callRoute(creditHistory, makeRequest('/api/image/credit-history', { token }))
  return ((await response.json()) as { history: { type: string; amount: number; description: string }[] }).history
}

describe('OpenAI answers 400 moderation_blocked, through the real web and worker processes', () => {
  let web: Awaited<ReturnType<typeof startWebProcess>>
  let worker: ReturnType<typeof startWorker>
  beforeAll(async () => {
    const env = { IMAGE_PROVIDER: 'openai', OPENAI_API_KEY: openai.apiKey, OPENAI_BASE_URL: openai.baseUrl }
    web = await startWebProcess(env)
    worker = startWorker(env)
    await worker.ready()
  })
  afterAll(() => Promise.all([web?.stop(), worker?.stop()]))

  test('the task fails with the reason, is refunded in full, and the stream carries the refund line', async () => {
    openai.setMode('moderation')
    const { user, token } = await createTestUser({ credits: 10 })
    const stream = readEventStream(
      await fetch(`${web.origin}/api/tasks/events`, { headers: { 'x-auth-token': token } }),
    )
    const form = new FormData()
    form.append('images', photoFile(await petPhoto()))
    form.append('style', 'general')
    const submitted = await fetch(`${web.origin}/api/async-image/generate`, {
      method: 'POST',
      headers: { 'x-auth-token': token },
      body: form,
    })
    expect(submitted.status).toBe(200)
    const { taskId, creditCost } = (await submitted.json()) as { taskId: string; creditCost: number }

    const isFailed = (event: StreamEvent) =>
      event.event === 'task' &&
      (JSON.parse(event.data) as TaskView).id === taskId &&
      JSON.parse(event.data).status === 'failed'
    const failed = JSON.parse((await stream.waitForEvent(isFailed, 30_000)).data) as TaskView
    expect(failed.error).toMatch(/declined to create this image because of its content rules/)
    expect(failed.refunds).toEqual([DECLINED])

    // Asked once: a refusal is final, never retried.
    expect(openai.requests).toHaveLength(1)
    expect(await refundsOf(taskId)).toMatchObject([{ amount: creditCost, description: DECLINED }])
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 10, ledgerSum: 10 })
    expect((await historyOf(token))[0]).toMatchObject({ type: 'earn', amount: creditCost, description: DECLINED })
    stream.close()
  })
})

describe('Gemini withholds the picture, through the real generation job', () => {
  test.each<[GeminiFakeMode, string]>([
    ['image_safety', 'finishReason IMAGE_SAFETY'],
    ['blocked_prompt', 'promptFeedback.blockReason'],
  ])('%s (%s): failed on the first attempt, refunded in full with the reason', async (mode) => {
    gemini.setMode(mode)
    const { user, token } = await createTestUser({ credits: 10 })
    const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
    const provider = createGeminiImageProvider({ apiKey: gemini.apiKey, baseUrl: gemini.baseUrl })
    await runGeneration({ taskId: body.taskId }, jobHelpers(1), imageGeneration(provider))

    expect(await taskRow(body.taskId)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^Gemini declined to create this image because of its content rules/),
    })
    expect(await refundsOf(body.taskId)).toMatchObject([{ amount: body.creditCost, description: DECLINED }])
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 10, ledgerSum: 10 })
    expect((await historyOf(token)).map((line) => line.description)).toContain(DECLINED)
  })
})
