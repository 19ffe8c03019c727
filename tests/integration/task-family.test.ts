import { sql } from 'kysely'
import { action as fixAction } from '#app/routes/api.async-image.task.$id.fix.ts'
import { action as rerollAction } from '#app/routes/api.async-image.task.$id.reroll.ts'
import { loader as taskLoader } from '#app/routes/api.async-image.task.$id.ts'
import { action as configAction, loader as configLoader } from '#app/routes/api.system-config.ts'
import { loader as analyticsLoader } from '#app/routes/analytics.tsx'
import { action as generatePage, loader as generatePageLoader } from '#app/routes/generate.tsx'
import { action as historyPage } from '#app/routes/history.tsx'
import { likenessCorrections } from '#domain/generation/likeness-fix.ts'
import { deleteFinishedTask } from '#domain/generation/user-tasks.server.ts'
import { expireTasks, failTask } from '#domain/generation/task-states.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import {
  balanceAndLedgerSum,
  petPhoto,
  photoFile,
  submitGeneration,
  taskRow,
  withOwnDataDir,
} from '#tests/helpers/generation.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'
import { httpClient, startWebServer } from '#tests/helpers/web-server.ts'

// Re-rolls and likeness fixes through the real routes, with the real worker completing the tasks
// (decision 0030). The image cost is the default 2 credits; each paid run includes 1 free fix.

withOwnDataDir()
const db = getDb()
let worker: ReturnType<typeof startWorker>

beforeAll(async () => {
  worker = startWorker({ IMAGE_PROVIDER: 'instant' })
  await worker.ready()
})
afterAll(async () => {
  await worker.stop()
})

async function post(route: typeof fixAction, path: string, id: string, token: string | undefined, json?: unknown) {
  const response = await callRoute(route, makeRequest(path, { method: 'POST', token, json }), { id })
  return { status: response.status, body: await response.json() }
}
const reroll = (id: string, token?: string) => post(rerollAction, `/api/async-image/task/${id}/reroll`, id, token)
const fix = (id: string, token: string | undefined, json: unknown = { reasons: ['ears'], note: '' }) =>
  post(fixAction, `/api/async-image/task/${id}/fix`, id, token, json)

const finished = (id: string) =>
  waitFor(
    async () => {
      const row = await taskRow(id)
      return row.status === 'completed' || row.status === 'failed' ? row : null
    },
    { timeout: 30_000 },
  )

/** A completed paid run of a new user with `credits`. */
async function completedRun(credits: number) {
  const { user, token } = await createTestUser({ credits })
  const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
  expect(await finished(body.taskId)).toMatchObject({ status: 'completed' })
  return { user, token, taskId: body.taskId as string }
}

const ledgerOf = (taskId: string) =>
  db.selectFrom('credit_transactions').select(['type', 'amount', 'description']).where('task_id', '=', taskId).execute()

test('a fix is free once per run and charged after; a fix of a fix brings no new free fix', async () => {
  const { user, token, taskId } = await completedRun(10)
  const first = await fix(taskId, token, { reasons: ['fur_colour', 'ears'], note: 'Her left ear flops' })
  expect(first).toMatchObject({ status: 200, body: { status: 'queued', type: 'image', creditCost: 0, credits: 8 } })
  expect(await ledgerOf(first.body.taskId)).toEqual([
    { type: 'spend', amount: 0, description: 'Likeness fix (free, included with the run)' },
  ])
  expect(await finished(first.body.taskId)).toMatchObject({
    status: 'completed',
    parent_task_id: taskId,
    family_root_id: taskId,
    input_keys: (await taskRow(taskId)).input_keys,
  })

  // The fix of the fix belongs to the same run, whose one free fix is taken.
  const second = await fix(first.body.taskId, token)
  expect(second).toMatchObject({ status: 200, body: { creditCost: 2, credits: 6 } })
  expect(await ledgerOf(second.body.taskId)).toEqual([{ type: 'spend', amount: -2, description: 'Likeness fix' }])
  expect(await taskRow(second.body.taskId)).toMatchObject({ parent_task_id: first.body.taskId, family_root_id: taskId })
  // And the original run, fixed again, is charged too.
  expect((await fix(taskId, token)).body).toMatchObject({ creditCost: 2, credits: 4 })
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 4, ledgerSum: 4 })
})

test('a re-roll is charged one version, keeps the photo and params with a new seed, and names its parent', async () => {
  const { user, token, taskId } = await completedRun(10)
  const rolled = await reroll(taskId, token)
  expect(rolled).toMatchObject({ status: 200, body: { status: 'queued', creditCost: 2, credits: 6 } })
  const parent = await taskRow(taskId)
  const child = await finished(rolled.body.taskId)
  expect(child).toMatchObject({ status: 'completed', credit_cost: 2, input_keys: parent.input_keys })
  expect(child.params).toEqual({ ...parent.params, seed: expect.any(Number) })
  const read = await callRoute(taskLoader, makeRequest(`/api/async-image/task/${rolled.body.taskId}`, { token }), {
    id: rolled.body.taskId,
  })
  expect(await read.json()).toMatchObject({ status: 'completed', parentTaskId: taskId })
  expect(await ledgerOf(rolled.body.taskId)).toEqual([{ type: 'spend', amount: -2, description: 'Image re-roll' }])

  // A re-roll brings no free fix of its own: the run's one is still there, then gone.
  expect((await fix(rolled.body.taskId, token)).body).toMatchObject({ creditCost: 0 })
  expect((await fix(rolled.body.taskId, token)).body).toMatchObject({ creditCost: 2 })
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 4, ledgerSum: 4 })
  // Deleting the re-roll leaves the run's photo, which the re-roll only borrowed, in place.
  await deleteFinishedTask(db, user.id, rolled.body.taskId, 'image')
  expect(await getStorage().stat(parent.input_keys[0]!)).not.toBeNull()
  expect((await reroll(taskId, token)).status).toBe(200)
})

test("someone else's task is not found, a queued one cannot be fixed, and bad input is a 400", async () => {
  const { token, taskId } = await completedRun(10)
  const other = await createTestUser({ credits: 10 })
  expect(await reroll(taskId, other.token)).toEqual({ status: 404, body: { message: 'Task not found' } })
  expect(await fix(taskId, other.token)).toEqual({ status: 404, body: { message: 'Task not found' } })
  expect((await reroll(taskId)).status).toBe(401)
  expect((await reroll('not-a-uuid', token)).status).toBe(404)
  expect(await fix(taskId, token, { reasons: ['tail'] })).toEqual({
    status: 400,
    body: { message: 'Unknown reason: choose from fur_colour, markings, ears, eyes, nose_muzzle, breed_body, other' },
  })
  expect(await fix(taskId, token, { reasons: ['eyes'], note: 'x'.repeat(201) })).toEqual({
    status: 400,
    body: { message: 'The note can be at most 200 characters' },
  })
  expect(await fix(taskId, token, { reasons: [] })).toEqual({
    status: 400,
    body: { message: 'Say what is off: choose at least one reason' },
  })
  expect((await balanceAndLedgerSum(other.user.id)).balance).toBe(10)
  expect((await db.selectFrom('task_families').selectAll().where('root_task_id', '=', taskId).execute()).length).toBe(0)
})

test('with the original photo gone, re-roll and fix are refused with 410 and nothing is charged', async () => {
  const { user, token, taskId } = await completedRun(10)
  await getStorage().deleteMany((await taskRow(taskId)).input_keys)
  const message = expect.stringContaining('The original photo of this portrait is no longer stored')
  expect(await reroll(taskId, token)).toEqual({ status: 410, body: { message } })
  expect(await fix(taskId, token)).toEqual({ status: 410, body: { message } })
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 8, ledgerSum: 8 })
  expect(await db.selectFrom('generation_tasks').select('id').where('user_id', '=', user.id).execute()).toHaveLength(1)
})

test('once the run that uploaded the photo expires, its re-roll can be neither re-rolled nor fixed', async () => {
  const { user, token, taskId } = await completedRun(10)
  const rolled = (await reroll(taskId, token)).body.taskId
  expect(await finished(rolled)).toMatchObject({ status: 'completed' })
  await db
    .updateTable('generation_tasks')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('id', '=', taskId)
    .execute()
  expect(await expireTasks(db)).toBe(1)
  expect(await taskRow(rolled)).toMatchObject({ parent_task_id: null, family_root_id: taskId })
  const before = await balanceAndLedgerSum(user.id)
  expect((await reroll(rolled, token)).status).toBe(410)
  expect((await fix(rolled, token)).status).toBe(410)
  expect(await balanceAndLedgerSum(user.id)).toEqual(before)
})

test('two parallel fixes of a run with one free fix: exactly one is free', async () => {
  const { user, token, taskId } = await completedRun(10)
  const answers = await Promise.all([fix(taskId, token), fix(taskId, token), fix(taskId, token)])
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200])
  expect(answers.map((answer) => answer.body.creditCost).sort()).toEqual([0, 2, 2])
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 4, ledgerSum: 4 })
  expect(await db.selectFrom('task_families').selectAll().where('root_task_id', '=', taskId).execute()).toEqual([
    expect.objectContaining({ free_fixes_included: 1, free_fixes_used: 1 }),
  ])
})

test("a fix goes to the front of its user's queue, not of everyone's", async () => {
  const { token, taskId } = await completedRun(20)
  const someoneElse = await createTestUser({ credits: 10 })
  await worker.stop()
  try {
    const waiting = []
    waiting.push((await submitGeneration(someoneElse.token, [photoFile(await petPhoto())])).body.taskId)
    waiting.push((await submitGeneration(token, [photoFile(await petPhoto())])).body.taskId)
    waiting.push((await submitGeneration(token, [photoFile(await petPhoto())])).body.taskId)
    const fixed = (await fix(taskId, token)).body.taskId
    const { rows } = await sql<{ key: string }>`
      SELECT key FROM graphile_worker.jobs WHERE key = ANY(${[...waiting, fixed]}) ORDER BY priority, run_at, id
    `.execute(db)
    expect(rows.map((row) => row.key)).toEqual([waiting[0], fixed, waiting[1], waiting[2]])
  } finally {
    worker = startWorker({ IMAGE_PROVIDER: 'instant' })
    await worker.ready()
  }
})

test('fix reasons appear on /analytics per template and per provider of the version fixed', async () => {
  const { token, taskId } = await completedRun(10)
  await fix(taskId, token, { reasons: ['markings', 'eyes'], note: 'no blaze' })
  await fix(taskId, token, { reasons: ['markings'] })
  const admin = await createTestUser({ role: 'superadmin' })
  const today = new Date().toISOString().slice(0, 10)
  const response = await callRoute(
    analyticsLoader,
    makeRequest(`/analytics?startDate=${today}&endDate=${today}`, { token: admin.token }),
  )
  const { fixReasons } = await response.json()
  const generator = fixReasons.byTemplate.find((entry: { key: string | null }) => entry.key === null)
  expect(generator).toMatchObject({ name: 'No template' })
  expect(generator.fixes).toBeGreaterThanOrEqual(2)
  // The worker of this file draws with the instant provider, which each version records.
  const instant = fixReasons.byProvider.find((entry: { key: string | null }) => entry.key === 'instant')
  expect(instant).toMatchObject({ name: 'instant' })
  expect(instant.fixes).toBeGreaterThanOrEqual(2)
  expect(instant.reasons).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'markings' })]))
  expect(generator.reasons).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ reason: 'markings', label: 'Markings' }),
      expect.objectContaining({ reason: 'eyes', label: 'Eyes' }),
    ]),
  )
  const reports = await db.selectFrom('likeness_fix_reports').selectAll().where('task_id', '=', taskId).execute()
  expect(reports.map((report) => [report.reasons, report.note])).toEqual([
    [['markings', 'eyes'], 'no blaze'],
    [['markings'], ''],
  ])
})

test("system config: a PUT with the spec's four fields answers as before and keeps freeLikenessFixes", async () => {
  const { token } = await createTestUser({ role: 'superadmin' })
  const put = async (json: unknown) => {
    const response = await callRoute(configAction, makeRequest('/api/system-config', { method: 'PUT', token, json }))
    return { status: response.status, body: await response.json() }
  }
  const get = async () => (await callRoute(configLoader, makeRequest('/api/system-config'))).json()
  const four = {
    newUserBonusCredits: 10,
    imageGenerationCreditCost: 2,
    videoGenerationCreditCost: 20,
    fastVideoGenerationCreditCost: 10,
  }
  expect(await put({ ...four, freeLikenessFixes: 3 })).toMatchObject({ status: 200 })
  expect(await put(four)).toEqual({
    status: 200,
    body: { message: 'System settings updated successfully', settings: four },
  })
  // hdImageCost (decision 0035) was never set: it follows the image cost, twice it.
  expect(await get()).toEqual({
    ...four,
    freeLikenessFixes: 3,
    hdImageCost: 2 * four.imageGenerationCreditCost,
    upscaleCost: 2,
    referralCredits: 20,
    referralMaxPerMonth: 10,
    printMarkup: 1.6,
    extraPetCost: 1,
  })
  expect((await put({ ...four, freeLikenessFixes: -1 })).body).toEqual({
    message: 'Free likeness fixes per paid run cannot be negative',
  })
  expect(await put({ ...four, freeLikenessFixes: 1 })).toMatchObject({ status: 200 })
})

test('the corrections name the reasons, the note and the traits when known', () => {
  const fix = { reasons: ['fur_colour', 'breed_body', 'other'] as const, note: 'white  socks' }
  expect(likenessCorrections({ ...fix, reasons: [...fix.reasons] })).toBe(
    'Likeness correction: an earlier portrait did not look like this pet, so follow the photo closely. ' +
      'Match the fur colours and their shades exactly as in the photo. ' +
      'Keep the breed features, body shape and proportions of the pet in the photo. The owner adds: "white socks".',
  )
  expect(
    likenessCorrections(
      { reasons: ['fur_colour', 'breed_body'], note: '' },
      { species: 'dog', breed: 'Corgi', colours: ['red', 'white'], markings: [] },
    ),
  ).toContain('Match the fur colours exactly (red, white), as in the photo. It is a Corgi dog:')
})

/** A plain url-encoded form post, as a browser without JavaScript sends the result panel's forms. */
function postForm(handler: typeof generatePage, path: string, token: string, fields: [string, string][]) {
  const body = new URLSearchParams(fields)
  const headers = { 'content-type': 'application/x-www-form-urlencoded' }
  return callRoute(handler, makeRequest(path, { method: 'POST', token, body, headers }))
}

test('without JavaScript: the generator and /history re-roll and fix by plain forms; the page shows the family', async () => {
  const { user, token, taskId } = await completedRun(10)
  const rolled = await postForm(generatePage, `/generate?task=${taskId}`, token, [
    ['intent', 'reroll'],
    ['taskId', taskId],
  ])
  expect(rolled.status).toBe(302)
  const rerollId = new URL(rolled.headers.get('location')!, 'http://localhost').searchParams.get('task')!
  expect(await taskRow(rerollId)).toMatchObject({ parent_task_id: taskId })

  const fixed = await postForm(historyPage, '/history?type=image&page=1', token, [
    ['intent', 'fix'],
    ['taskId', taskId],
    ['reasons', 'ears'],
    ['reasons', 'eyes'],
    ['note', 'rounder eyes'],
  ])
  expect(fixed.status).toBe(302)
  const fixId = new URL(fixed.headers.get('location')!, 'http://localhost').searchParams.get('task')!
  expect((await taskRow(fixId)).params).toMatchObject({
    likenessFix: { reasons: ['ears', 'eyes'], note: 'rounder eyes' },
  })

  const refused = await postForm(generatePage, `/generate?task=${taskId}`, token, [
    ['intent', 'fix'],
    ['taskId', taskId],
  ])
  expect(refused.status).toBe(400)
  expect(await refused.json()).toEqual({
    taskFamily: { taskId, intent: 'fix', message: 'Say what is off: choose at least one reason', needPurchase: false },
  })

  const page = await callRoute(generatePageLoader, makeRequest(`/generate?task=${taskId}`, { token }))
  const { family } = await page.json()
  expect(family).toEqual({
    parent: null,
    children: [
      { id: rerollId, status: expect.any(String), kind: 'reroll' },
      { id: fixId, status: expect.any(String), kind: 'fix' },
    ],
    freeFixesLeft: 0,
  })
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 6, ledgerSum: 6 })
})

test('a re-roll on a balance too short answers 402 with needPurchase and charges nothing', async () => {
  const { user, token, taskId } = await completedRun(3)
  expect(await reroll(taskId, token)).toEqual({
    status: 402,
    body: { message: 'You need at least 2 credits to generate an image', needPurchase: true },
  })
  // The free fix needs no credits at all.
  expect((await fix(taskId, token)).body).toMatchObject({ creditCost: 0, credits: 1 })
  expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 1, ledgerSum: 1 })
})

test('over HTTP: the routes answer POST under the task path, and another method is a 405', async () => {
  const { token, taskId } = await completedRun(10)
  const web = await startWebServer()
  const client = httpClient(web.origin)
  try {
    const headers = { 'x-auth-token': token, 'content-type': 'application/json' }
    const rolled = await client.fetch(`/api/async-image/task/${taskId}/reroll`, { method: 'POST', headers })
    expect(rolled.status).toBe(200)
    expect(await rolled.json()).toMatchObject({ taskId: expect.any(String), creditCost: 2 })
    const body = JSON.stringify({ reasons: ['nose_muzzle'], note: 'shorter muzzle' })
    const fixed = await client.fetch(`/api/async-image/task/${taskId}/fix`, { method: 'POST', headers, body })
    expect(await fixed.json()).toMatchObject({ taskId: expect.any(String), creditCost: 0 })
    const read = await client.fetch(`/api/async-image/task/${taskId}/fix`, { headers })
    expect(read.status).toBe(405)
  } finally {
    await client.close()
    await web.close()
  }
})

test('a free fix that fails gives its free fix back; a paid one that fails is refunded instead', async () => {
  const { user, token, taskId } = await completedRun(10)
  // No worker meanwhile, so the fixes wait queued until they are failed here.
  await worker.stop()
  try {
    const free = await fix(taskId, token)
    expect(free.body).toMatchObject({ creditCost: 0 })
    expect(await db.transaction().execute((tx) => failTask(tx, free.body.taskId, 'The provider declined it'))).toBe(
      true,
    )
    const again = await fix(taskId, token)
    expect(again.body).toMatchObject({ creditCost: 0 })
    const paid = await fix(taskId, token)
    expect(paid.body).toMatchObject({ creditCost: 2, credits: 6 })
    await db.transaction().execute((tx) => failTask(tx, paid.body.taskId, 'The provider declined it'))
    // The paid fix is refunded and does not hand a free fix out.
    expect((await fix(taskId, token)).body).toMatchObject({ creditCost: 2 })
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 6, ledgerSum: 6 })
  } finally {
    worker = startWorker({ IMAGE_PROVIDER: 'instant' })
    await worker.ready()
  }
})
