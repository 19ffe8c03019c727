import sharp from 'sharp'
import { getDb } from '#platform/db.server.ts'
import { getMediaBytes, getStorage } from '#platform/storage.server.ts'
import { createGeminiImageProvider } from '#worker/providers/image/gemini.ts'
import { createLocalImageProvider } from '#worker/providers/image/local.ts'
import { createOpenAiImageProvider } from '#worker/providers/image/openai.ts'
import { imageGeneration } from '#worker/jobs/generate-image.ts'
import { runGeneration } from '#worker/generation/run-generation.ts'
import { completeTask } from '#domain/generation/task-states.server.ts'
import { loader as taskLoader } from '#app/routes/api.async-image.task.$id.ts'
import { action as configAction, loader as configLoader } from '#app/routes/api.system-config.ts'
import { startGeminiFake, type GeminiFake } from '#tests/fakes/gemini.ts'
import { startOpenAiFake, type OpenAiFake } from '#tests/fakes/openai.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import {
  balanceAndLedgerSum,
  creditsOf,
  petPhoto,
  photoFile,
  refundsOf,
  submitGeneration,
  taskRow,
  withOwnDataDir,
} from '#tests/helpers/generation.ts'
import { jobHelpers } from '#tests/helpers/jobs.ts'

withOwnDataDir()
const db = getDb()
/** The default image cost, and HD's default: twice that. */
const COST = 2
const HD_COST = 4

let openai: OpenAiFake
let gemini: GeminiFake
beforeAll(async () => {
  openai = await startOpenAiFake()
  gemini = await startGeminiFake()
})
afterAll(async () => {
  await openai.close()
  await gemini.close()
})
beforeEach(() => {
  openai.setMode('success')
  gemini.setMode('success')
})

const openAiJob = () => imageGeneration(createOpenAiImageProvider({ apiKey: openai.apiKey, baseUrl: openai.baseUrl }))
const geminiJob = () => imageGeneration(createGeminiImageProvider({ apiKey: gemini.apiKey, baseUrl: gemini.baseUrl }))

async function submitHd(token: string, fields: Record<string, string> = {}) {
  return submitGeneration(token, [photoFile(await petPhoto())], { quality: 'hd', ...fields })
}

async function taskView(token: string, taskId: string) {
  const response = await callRoute(taskLoader, makeRequest(`/api/async-image/task/${taskId}`, { token }), {
    id: taskId,
  })
  return response.json()
}

/** A stored version's size and the density its file says. */
async function storedSize(taskId: string, index = 0) {
  const version = await db
    .selectFrom('task_versions')
    .select('key')
    .where('task_id', '=', taskId)
    .where('version_index', '=', index)
    .executeTakeFirstOrThrow()
  const bytes = await getMediaBytes(getStorage(), version.key)
  const { width, height, density } = await sharp(bytes!).metadata()
  return { width, height, density }
}

describe('submission', () => {
  test('HD costs hdImageCost a version, shown in the ledger line; anything but standard or hd is a 400', async () => {
    const { user, token } = await createTestUser({ credits: 20 })
    const two = await submitHd(token, { variants: '2' })
    expect(two.body).toMatchObject({ creditCost: 2 * HD_COST, credits: 20 - 2 * HD_COST })
    const line = await db
      .selectFrom('credit_transactions')
      .select('description')
      .where('task_id', '=', two.body.taskId)
      .executeTakeFirstOrThrow()
    expect(line.description).toBe('Image generation in HD (2 versions)')
    const standard = await submitGeneration(token, [photoFile(await petPhoto())], { quality: 'standard' })
    expect(standard.body).toMatchObject({ creditCost: COST })

    const bad = await submitGeneration(token, [photoFile(await petPhoto())], { quality: 'ultra' })
    expect(bad).toEqual({ status: 400, body: expect.objectContaining({ message: 'quality must be standard or hd' }) })
    expect(await creditsOf(user.id)).toBe(20 - 2 * HD_COST - COST)
  })
})

describe('HD per provider, against the fakes that refuse what the real services refuse', () => {
  test('the OpenAI fake refuses sizes gpt-image-2 does not make and accepts its largest', async () => {
    const ask = async (size: string) => {
      const form = new FormData()
      form.append('model', 'gpt-image-2')
      form.append('prompt', 'a cat')
      form.append('size', size)
      form.append('image[]', new Blob([new Uint8Array(await petPhoto())], { type: 'image/png' }), 'cat.png')
      const response = await fetch(`${openai.baseUrl}/images/edits`, {
        method: 'POST',
        headers: { authorization: `Bearer ${openai.apiKey}` },
        body: form,
      })
      return { status: response.status, body: (await response.json()) as { error?: { message: string } } }
    }
    expect((await ask('4096x4096')).body.error?.message).toMatch(/at most 3840/)
    expect((await ask('3840x3840')).body.error?.message).toMatch(/between 655360 and 8294400 pixels/)
    expect((await ask('2888x2888')).body.error?.message).toMatch(/multiples of 16/)
    expect((await ask('3840x1088')).body.error?.message).toMatch(/at most 3:1/)
    expect((await ask('3840x2160')).status).toBe(200)
  })

  test('OpenAI HD asks for 2880x2880 and stores it at 300 DPI; the task says how large it prints', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const { body } = await submitHd(token)
    await runGeneration({ taskId: body.taskId }, jobHelpers(1), openAiJob())
    expect(openai.requests.at(-1)?.size).toBe('2880x2880')
    expect(await taskRow(body.taskId)).toMatchObject({ status: 'completed' })
    expect(await storedSize(body.taskId)).toEqual({ width: 2880, height: 2880, density: 300 })
    expect(await refundsOf(body.taskId)).toEqual([])
    expect(await creditsOf(user.id)).toBe(10 - HD_COST)

    const view = await taskView(token, body.taskId)
    expect(view.images[0].print).toMatchObject({
      widthPx: 2880,
      heightPx: 2880,
      inchesAt300: { width: 9.6, height: 9.6 },
      largestPrint: { sharp: { name: '5×7' }, good: { name: '11×14' } },
    })
    expect(view.result.print).toEqual(view.images[0].print)
  })

  test('standard OpenAI still asks for 1024x1024', async () => {
    const { token } = await createTestUser({ credits: 10 })
    const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
    await runGeneration({ taskId: body.taskId }, jobHelpers(1), openAiJob())
    expect(openai.requests.at(-1)?.size).toBe('1024x1024')
  })

  test('a model that ignores the HD size: each smaller version gets the HD difference back, exactly once', async () => {
    const { user, token } = await createTestUser({ credits: 20 })
    openai.setMode('ignores_size')
    const { body } = await submitHd(token, { variants: '2' })
    await runGeneration({ taskId: body.taskId }, jobHelpers(1), openAiJob())
    expect(await taskRow(body.taskId)).toMatchObject({ status: 'completed' })

    const refunds = await db
      .selectFrom('credit_transactions')
      .select(['amount', 'description', 'version_index', 'refund_kind'])
      .where('task_id', '=', body.taskId)
      .where('type', '=', 'earn')
      .orderBy('version_index')
      .execute()
    expect(refunds).toEqual([
      {
        amount: HD_COST - COST,
        description: 'Refunded the HD difference: version 1 of 2 came back smaller than HD',
        version_index: 0,
        refund_kind: 'hd_shortfall',
      },
      {
        amount: HD_COST - COST,
        description: 'Refunded the HD difference: version 2 of 2 came back smaller than HD',
        version_index: 1,
        refund_kind: 'hd_shortfall',
      },
    ])
    expect(await creditsOf(user.id)).toBe(20 - 2 * COST)
    expect((await taskView(token, body.taskId)).refunds).toHaveLength(2)

    // A second settlement of the same task changes nothing (the status guard), and a second HD
    // refund of a version is refused by its own unique index.
    const versions = [{ index: 0, key: 'k', width: 64, height: 64 }]
    expect(await completeTask(db, body.taskId, versions, { hdLongEdge: 2880 })).toBe(false)
    await expect(
      db
        .insertInto('credit_transactions')
        .values({
          user_id: user.id,
          type: 'earn',
          amount: 2,
          description: 'again',
          task_id: body.taskId,
          version_index: 0,
          payment_proof_id: null,
          refund_kind: 'hd_shortfall',
        })
        .execute(),
    ).rejects.toThrow(/credit_transactions_hd_refund_once/)
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 20 - 2 * COST, ledgerSum: 20 - 2 * COST })
  })

  test('Gemini HD sends imageConfig 4K 1:1 and stores 4096 px; the fake refuses a lower-case size', async () => {
    const { token } = await createTestUser({ credits: 10 })
    const { body } = await submitHd(token)
    await runGeneration({ taskId: body.taskId }, jobHelpers(1), geminiJob())
    expect(gemini.requests.at(-1)?.generationConfig).toEqual({
      responseModalities: ['TEXT', 'IMAGE'],
      imageConfig: { aspectRatio: '1:1', imageSize: '4K' },
    })
    expect(await storedSize(body.taskId)).toEqual({ width: 4096, height: 4096, density: 300 })
    expect(await refundsOf(body.taskId)).toEqual([])

    const refused = await fetch(`${gemini.baseUrl}/v1beta/models/gemini-3.1-flash-image:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': gemini.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        contents: [{ parts: [{ text: 'a cat' }] }],
        generationConfig: { responseModalities: ['IMAGE'], imageConfig: { imageSize: '4k' } },
      }),
    })
    expect(refused.status).toBe(400)
  })

  test('the local renderer makes HD at 4096 px', async () => {
    const { token } = await createTestUser({ credits: 10 })
    const { body } = await submitHd(token)
    await runGeneration({ taskId: body.taskId }, jobHelpers(1), imageGeneration(createLocalImageProvider()))
    expect(await storedSize(body.taskId)).toEqual({ width: 4096, height: 4096, density: 300 })
    expect(await refundsOf(body.taskId)).toEqual([])
    const view = await taskView(token, body.taskId)
    expect(view.images[0].print.largestPrint.sharp.name).toBe('8×10')
  })
})

describe('system config', () => {
  const four = {
    newUserBonusCredits: 10,
    imageGenerationCreditCost: 3,
    videoGenerationCreditCost: 20,
    fastVideoGenerationCreditCost: 10,
  }
  const get = async () => (await callRoute(configLoader, makeRequest('/api/system-config'))).json()
  const put = async (token: string, json: unknown) => {
    const response = await callRoute(configAction, makeRequest('/api/system-config', { method: 'PUT', token, json }))
    return { status: response.status, body: await response.json() }
  }

  test("a PUT with the spec's four answers as before; hdImageCost defaults to twice the image cost", async () => {
    const { token } = await createTestUser({ role: 'superadmin' })
    const answered = await put(token, four)
    expect(answered.status).toBe(200)
    expect(answered.body.settings).toEqual(four)
    expect(await get()).toMatchObject({ ...four, hdImageCost: 6 })
    expect((await put(token, { ...four, hdImageCost: 5 })).status).toBe(200)
    expect(await get()).toMatchObject({ hdImageCost: 5 })
    expect((await put(token, four)).status).toBe(200)
    expect(await get()).toMatchObject({ hdImageCost: 5 })
    expect((await put(token, { ...four, hdImageCost: -1 })).status).toBe(400)
    await put(token, { ...four, imageGenerationCreditCost: COST })
  })
})
