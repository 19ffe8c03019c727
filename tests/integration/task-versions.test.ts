import { unzipSync } from 'fflate'
import { sql } from 'kysely'
import sharp from 'sharp'
import { failTask, startTaskAttempt } from '#domain/generation/task-states.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getMediaBytes, getStorage } from '#platform/storage.server.ts'
import { createGeminiImageProvider } from '#worker/providers/image/gemini.ts'
import { sharedRateLimit } from '#worker/providers/shared-rate-limit.ts'
import { imageGeneration } from '#worker/jobs/generate-image.ts'
import { runGeneration } from '#worker/generation/run-generation.ts'
import { loader as taskLoader } from '#app/routes/api.async-image.task.$id.ts'
import { action as favouriteAction } from '#app/routes/api.async-image.task.$id.favourite.ts'
import { loader as zipLoader } from '#app/routes/api.async-image.task.$id.zip.ts'
import { loader as historyLoader } from '#app/routes/api.image.history.ts'
import { action as historyAction } from '#app/routes/history.tsx'
import { action as generateAction } from '#app/routes/generate.tsx'
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
  tasksOf,
  withOwnDataDir,
} from '#tests/helpers/generation.ts'
import { jobHelpers } from '#tests/helpers/jobs.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

withOwnDataDir()
const db = getDb()
/** The default image cost (system config). */
const COST = 2

let openai: OpenAiFake
let gemini: GeminiFake
beforeAll(async () => {
  openai = await startOpenAiFake({ imageBudget: 2 })
  gemini = await startGeminiFake()
})
afterAll(async () => {
  await openai.close()
  await gemini.close()
})

async function submitVersions(token: string, variants: string) {
  return submitGeneration(token, [photoFile(await petPhoto())], { variants })
}

const finished = (taskId: string) =>
  waitFor(
    async () => {
      const row = await taskRow(taskId)
      return row.status === 'completed' || row.status === 'failed' ? row : null
    },
    { timeout: 30_000 },
  )

async function taskView(token: string, taskId: string) {
  const response = await callRoute(taskLoader, makeRequest(`/api/async-image/task/${taskId}`, { token }), {
    id: taskId,
  })
  return { status: response.status, body: await response.json() }
}

describe('variants at submission', () => {
  test('the default is one version at the image cost; 4 versions cost 4 times that, in one ledger line', async () => {
    const { user, token } = await createTestUser({ credits: 20 })
    const one = await submitGeneration(token, [photoFile(await petPhoto())])
    expect(one.body).toMatchObject({ creditCost: COST, credits: 20 - COST })
    const four = await submitVersions(token, '4')
    expect(four.status).toBe(200)
    expect(four.body).toMatchObject({ creditCost: 4 * COST, credits: 20 - 5 * COST })

    const spends = await db
      .selectFrom('credit_transactions')
      .select(['amount', 'task_id', 'description'])
      .where('user_id', '=', user.id)
      .where('type', '=', 'spend')
      .execute()
    expect(spends.filter((line) => line.task_id === four.body.taskId)).toEqual([
      { amount: -4 * COST, task_id: four.body.taskId, description: 'Image generation (4 versions)' },
    ])
    expect(await taskRow(four.body.taskId)).toMatchObject({ variants: 4, credit_cost: 4 * COST, favourite_index: 0 })
  })

  test.each(['3', '0', '5', 'two', '-1', '1.5'])(
    'variants=%s is refused with 400 and charges nothing',
    async (value) => {
      const { user, token } = await createTestUser({ credits: 20 })
      const { status, body } = await submitVersions(token, value)
      expect(status).toBe(400)
      expect(body.message).toBe('variants must be 1, 2 or 4')
      expect(await creditsOf(user.id)).toBe(20)
      expect(await tasksOf(user.id)).toHaveLength(0)
    },
  )

  test('20 parallel 4-version submissions on a balance that covers 3 leave it exact and never negative', async () => {
    const { user, token } = await createTestUser({ credits: 3 * 4 * COST })
    const answers = await Promise.all(Array.from({ length: 20 }, () => submitVersions(token, '4')))
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3)
    expect(answers.filter((answer) => answer.status === 402)).toHaveLength(17)
    for (const answer of answers) {
      if (answer.status === 200) expect(answer.body.credits).toBeGreaterThanOrEqual(0)
    }
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 0, ledgerSum: 0 })
    expect(await tasksOf(user.id)).toHaveLength(3)
  })
})

describe('refunds per version', () => {
  // Tasks other tests left queued would be run (and paid for) by the worker started here.
  beforeEach(async () => {
    await sql`DELETE FROM graphile_worker._private_jobs`.execute(db)
    await db.updateTable('generation_tasks').set({ status: 'failed' }).where('status', '=', 'queued').execute()
  })

  test('a failed 4-version task refunds each version once, one ledger line each', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const { body } = await submitVersions(token, '4')
    await startTaskAttempt(db, body.taskId, 'local')
    const fail = () => db.transaction().execute((tx) => failTask(tx, body.taskId, 'boom'))
    expect(await fail()).toBe(true)
    expect(await fail()).toBe(false)
    const refunds = await refundsOf(body.taskId)
    expect(refunds.map((line) => [line.version_index, line.amount]).sort()).toEqual([
      [0, COST],
      [1, COST],
      [2, COST],
      [3, COST],
    ])
    // Each line names its version and why.
    expect(refunds.map((line) => line.description).sort()).toEqual([
      'Refunded: something went wrong on our side while making version 1 of 4',
      'Refunded: something went wrong on our side while making version 2 of 4',
      'Refunded: something went wrong on our side while making version 3 of 4',
      'Refunded: something went wrong on our side while making version 4 of 4',
    ])
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 10, ledgerSum: 10 })
    // The ledger itself refuses a second refund of the same version.
    const again = db
      .insertInto('credit_transactions')
      .values({
        user_id: user.id,
        type: 'earn',
        amount: COST,
        description: 'x',
        task_id: body.taskId,
        version_index: 2,
      })
      .execute()
    await expect(again).rejects.toThrow(/credit_transactions_refund_once/)
  })

  test('the real worker with an OpenAI that delivers 2 of 4 versions: one call with n=4, exactly 2 refunded', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const worker = startWorker({
      IMAGE_PROVIDER: 'openai',
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_API_KEY: openai.apiKey,
    })
    try {
      await worker.ready()
      const { body } = await submitVersions(token, '4')
      const done = await finished(body.taskId)
      expect(done).toMatchObject({ status: 'completed', variants: 4, error: null })
      expect(openai.requests.map((request) => request.n)).toEqual(['4'])

      const refunds = await refundsOf(body.taskId)
      expect(refunds).toHaveLength(2)
      expect(refunds.map((line) => line.version_index).sort()).toEqual([2, 3])
      expect(refunds.every((line) => line.amount === COST)).toBe(true)
      expect(refunds.map((line) => line.description).sort()).toEqual([
        'Refunded: the provider did not deliver version 3 of 4',
        'Refunded: the provider did not deliver version 4 of 4',
      ])
      // The task says so too, in the same words.
      const { body: shown } = await taskView(token, body.taskId)
      expect(shown.refunds).toEqual([
        'Refunded: the provider did not deliver version 3 of 4',
        'Refunded: the provider did not deliver version 4 of 4',
      ])
      expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 10 - 2 * COST, ledgerSum: 10 - 2 * COST })

      const { body: view } = await taskView(token, body.taskId)
      expect(view.images).toHaveLength(2)
      expect(view.images.map((image: { index: number }) => image.index)).toEqual([0, 1])
      const size = await sharp(openai.resultPng).metadata()
      expect(view.images[0]).toMatchObject({ width: size.width, height: size.height })
      expect(view.result.imageUrl).toBe(view.images[0].url)
    } finally {
      await worker.stop()
    }
  })

  test('the real worker with Gemini makes 4 calls for 4 versions', async () => {
    const { token } = await createTestUser({ credits: 10 })
    const worker = startWorker({
      IMAGE_PROVIDER: 'gemini',
      GEMINI_BASE_URL: gemini.baseUrl,
      GEMINI_API_KEY: gemini.apiKey,
    })
    try {
      await worker.ready()
      const calls = gemini.requests.length
      const { body } = await submitVersions(token, '4')
      expect(await finished(body.taskId)).toMatchObject({ status: 'completed' })
      expect(gemini.requests.length - calls).toBe(4)
      expect((await refundsOf(body.taskId)).length).toBe(0)
      expect((await taskView(token, body.taskId)).body.images).toHaveLength(4)
    } finally {
      await worker.stop()
    }
  })

  test('the real worker with the offline renderer makes 2 visibly different versions', async () => {
    const { token } = await createTestUser({ credits: 10 })
    const worker = startWorker({ IMAGE_PROVIDER: 'local' })
    try {
      await worker.ready()
      const { body } = await submitGeneration(token, [photoFile(await petPhoto('#8a5a2b'))], { variants: '2' })
      expect(body).toMatchObject({ taskId: expect.any(String) })
      expect(await finished(body.taskId)).toMatchObject({ status: 'completed' })
      const keys = await db
        .selectFrom('task_versions')
        .select('key')
        .where('task_id', '=', body.taskId)
        .orderBy('version_index')
        .execute()
      expect(keys).toHaveLength(2)
      const pixels = await Promise.all(
        keys.map(async ({ key }) =>
          sharp((await getMediaBytes(getStorage(), key))!)
            .resize(64, 64)
            .raw()
            .toBuffer(),
        ),
      )
      let difference = 0
      for (let at = 0; at < pixels[0].length; at++) difference += Math.abs(pixels[0][at] - pixels[1][at])
      expect(difference / pixels[0].length).toBeGreaterThan(5)
    } finally {
      await worker.stop()
    }
  })
})

describe('Gemini and the shared rate limit', () => {
  test('each version is a request: with room for 3, 3 calls are made and the 4th waits for room', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const { body } = await submitVersions(token, '4')
    const limit = sharedRateLimit(db, 'test:gemini-versions', 'Gemini', 3)
    const job = imageGeneration(createGeminiImageProvider({ apiKey: gemini.apiKey, baseUrl: gemini.baseUrl }), limit)
    const calls = gemini.requests.length

    await runGeneration({ taskId: body.taskId }, jobHelpers(1), job)
    expect(gemini.requests.length - calls).toBe(3)
    const waiting = await taskRow(body.taskId)
    expect(waiting.status).toBe('queued')
    expect(waiting.waited_ms).toBeGreaterThan(50_000)
    const held = await db
      .selectFrom('provider_requests')
      .selectAll()
      .where('provider', '=', 'test:gemini-versions')
      .execute()
    expect(held).toHaveLength(3)

    // A minute later the window has room again: the next run asks only for the missing version.
    await db.deleteFrom('provider_requests').where('provider', '=', 'test:gemini-versions').execute()
    await runGeneration({ taskId: body.taskId }, jobHelpers(2), job)
    expect(gemini.requests.length - calls).toBe(4)
    expect(await taskRow(body.taskId)).toMatchObject({ status: 'completed' })
    expect((await taskView(token, body.taskId)).body.images).toHaveLength(4)
    expect(await refundsOf(body.taskId)).toHaveLength(0)
    expect(await creditsOf(user.id)).toBe(10 - 4 * COST)
  })

  test('a run that waits too long for room keeps the versions it has and refunds only the rest', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const { body } = await submitVersions(token, '4')
    // It has already waited as long as a task may: the next wait for room ends it.
    await db
      .updateTable('generation_tasks')
      .set({ waited_ms: 15 * 60_000 })
      .where('id', '=', body.taskId)
      .execute()
    const limit = sharedRateLimit(db, 'test:gemini-long-wait', 'Gemini', 3)
    const job = imageGeneration(createGeminiImageProvider({ apiKey: gemini.apiKey, baseUrl: gemini.baseUrl }), limit)

    await runGeneration({ taskId: body.taskId }, jobHelpers(1), job)
    expect(await taskRow(body.taskId)).toMatchObject({ status: 'completed' })
    expect((await taskView(token, body.taskId)).body.images.map((image: { index: number }) => image.index)).toEqual([
      0, 1, 2,
    ])
    expect((await refundsOf(body.taskId)).map((line) => line.description)).toEqual([
      expect.stringContaining('the provider stayed too busy to make version 4 of 4'),
    ])
    expect(await creditsOf(user.id)).toBe(10 - 3 * COST)
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 10 - 3 * COST, ledgerSum: 10 - 3 * COST })
  })
})

describe('favourite and download of all', () => {
  /** A finished 2-version task of the user, made by the offline renderer in this process. */
  async function twoVersionTask(token: string) {
    const { body } = await submitVersions(token, '2')
    const { createLocalImageProvider } = await import('#worker/providers/image/local.ts')
    await runGeneration({ taskId: body.taskId }, jobHelpers(1), imageGeneration(createLocalImageProvider()))
    return body.taskId as string
  }

  const putFavourite = async (token: string, taskId: string, json: unknown) => {
    const request = makeRequest(`/api/async-image/task/${taskId}/favourite`, { method: 'PUT', token, json })
    const response = await callRoute(favouriteAction, request, { id: taskId })
    return { status: response.status, body: await response.json() }
  }

  test('the owner picks version 1: it becomes the result in the task and history answers', async () => {
    const { token } = await createTestUser({ credits: 10 })
    const taskId = await twoVersionTask(token)
    const before = (await taskView(token, taskId)).body
    expect(before.favouriteIndex).toBe(0)
    expect(before.result.imageUrl).toBe(before.images[0].url)

    expect(await putFavourite(token, taskId, { index: 1 })).toEqual({
      status: 200,
      body: { message: 'Favourite saved', favouriteIndex: 1 },
    })
    const after = (await taskView(token, taskId)).body
    expect(after.favouriteIndex).toBe(1)
    expect(after.result.imageUrl).toBe(before.images[1].url)

    const history = await callRoute(historyLoader, makeRequest('/api/image/history', { token }))
    const [item] = (await history.json()).data
    expect(item).toMatchObject({ _id: taskId, imageUrl: before.images[1].url, favouriteIndex: 1 })
    expect(item.images).toHaveLength(2)
  })

  test('refusals: another user 404, a version the task lacks or a bad index 400, an unfinished task 409', async () => {
    const { token } = await createTestUser({ credits: 10 })
    const { token: other } = await createTestUser({ credits: 10 })
    const taskId = await twoVersionTask(token)

    expect((await putFavourite(other, taskId, { index: 1 })).status).toBe(404)
    expect(await putFavourite(token, taskId, { index: 2 })).toEqual({
      status: 400,
      body: { message: 'This image has no version 2' },
    })
    expect((await putFavourite(token, taskId, { index: -1 })).status).toBe(400)
    expect((await putFavourite(token, taskId, { index: 'first' })).status).toBe(400)
    // Past what a database integer holds: still a plain refusal, never a 500.
    for (const index of [1e10, '2147483648']) {
      expect(await putFavourite(token, taskId, { index })).toEqual({
        status: 400,
        body: { message: 'index must be at most 3 (a run has up to 4 versions)' },
      })
    }
    expect((await putFavourite(token, taskId, {})).status).toBe(400)
    expect((await putFavourite(token, 'not-a-task', { index: 0 })).status).toBe(404)
    expect((await taskRow(taskId)).favourite_index).toBe(0)

    const { body: queued } = await submitVersions(token, '2')
    expect(await putFavourite(token, queued.taskId, { index: 0 })).toEqual({
      status: 409,
      body: { message: 'Only a finished image can have a favourite' },
    })
  })

  test("without JavaScript the pages' favourite forms post to their own action and come back to the page", async () => {
    const { token } = await createTestUser({ credits: 10 })
    const { token: other } = await createTestUser({ credits: 10 })
    const taskId = await twoVersionTask(token)
    const post = (handler: typeof historyAction | typeof generateAction, path: string, who: string, index: string) =>
      callRoute(
        handler,
        makeRequest(path, {
          method: 'POST',
          token: who,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ intent: 'favourite', task: taskId, index }).toString(),
        }),
      )

    const fromHistory = await post(historyAction, '/history?type=image&page=1', token, '1')
    expect(fromHistory.status).toBe(302)
    expect(fromHistory.headers.get('location')).toBe('/history?type=image&page=1')
    expect((await taskRow(taskId)).favourite_index).toBe(1)

    const fromGenerator = await post(generateAction, `/generate?task=${taskId}`, token, '0')
    expect(fromGenerator.headers.get('location')).toBe(`/generate?task=${taskId}`)
    expect((await taskRow(taskId)).favourite_index).toBe(0)

    // The generator page's script sends the same form and is answered in place.
    const inPage = await callRoute(
      generateAction,
      makeRequest(`/generate?task=${taskId}`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ intent: 'favourite', task: taskId, index: '1', inPage: '1' }).toString(),
      }),
    )
    expect({ status: inPage.status, body: await inPage.json() }).toEqual({ status: 200, body: { favouriteIndex: 1 } })
    expect((await taskRow(taskId)).favourite_index).toBe(1)

    const refused = await post(historyAction, '/history?type=image&page=1', other, '0')
    expect(refused.status).toBe(404)
    expect((await taskRow(taskId)).favourite_index).toBe(1)
  })

  test('the zip holds every version; another user gets 404', async () => {
    const { token } = await createTestUser({ credits: 10 })
    const { token: other } = await createTestUser({ credits: 10 })
    const taskId = await twoVersionTask(token)
    const response = await callRoute(zipLoader, makeRequest(`/api/async-image/task/${taskId}/zip`, { token }), {
      id: taskId,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/zip')
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()))
    // The spec's prefix, the task (no pet or template named), the day, the version (decision 0035).
    const prefix = `pet-portrait-${taskId.slice(0, 8)}-${(await taskRow(taskId)).created_at.toISOString().slice(0, 10)}`
    expect(Object.keys(files).sort()).toEqual([`${prefix}-1.png`, `${prefix}-2.png`])
    const versions = await db
      .selectFrom('task_versions')
      .select(['key', 'version_index'])
      .where('task_id', '=', taskId)
      .execute()
    for (const { key, version_index } of versions) {
      const stored = await getMediaBytes(getStorage(), key)
      expect(Buffer.from(files[`${prefix}-${version_index + 1}.png`]).equals(stored!)).toBe(true)
      expect((await sharp(stored!).metadata()).density).toBe(300)
    }

    const refused = await callRoute(zipLoader, makeRequest(`/api/async-image/task/${taskId}/zip`, { token: other }), {
      id: taskId,
    })
    expect(refused.status).toBe(404)
  })
})
