import { sql } from 'kysely'
import { completeTask, startTaskAttempt } from '#domain/generation/task-states.server.ts'
import { getDb } from '#platform/db.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import {
  balanceAndLedgerSum,
  petPhoto,
  photoFile,
  submitGeneration,
  tasksOf,
  withOwnDataDir,
} from '#tests/helpers/generation.ts'
import { loader as taskLoader } from '#app/routes/api.async-image.task.$id.ts'
import { loader as todayLoader } from '#app/routes/api.async-image.tasks.today.ts'
import { loader as historyLoader } from '#app/routes/api.image.history.ts'
import { action as deleteAction } from '#app/routes/api.image.delete.$id.ts'

const media = withOwnDataDir()

const submit = submitGeneration

/** A task finished as the worker would finish it, with a stored result. */
async function completedTask(token: string) {
  const { body } = await submit(token, [photoFile(await petPhoto())])
  await startTaskAttempt(getDb(), body.taskId, 'local')
  const task = await getDb()
    .selectFrom('generation_tasks')
    .select('input_keys')
    .where('id', '=', body.taskId)
    .executeTakeFirstOrThrow()
  // The stored input stands in for the result: any key under the task works.
  await completeTask(getDb(), body.taskId, task.input_keys[0])
  return body.taskId as string
}

describe('POST /api/async-image/generate', () => {
  test('debits the cost, books the spend, creates the task and its job, stores the sniffed photo', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const { status, body } = await submit(token, [photoFile(await petPhoto(), 'my-dog.png', 'image/png')], {
      personification: 'yes',
      clothingTop: 'a red hoodie',
      clothingPants: 'jeans',
      background: 'a beach',
      prompt: '',
    })
    expect(status).toBe(200)
    expect(body).toMatchObject({ taskId: expect.any(String), status: 'queued', creditCost: 2, credits: 8 })

    const [task] = await tasksOf(user.id)
    expect(task).toMatchObject({ id: body.taskId, kind: 'image', status: 'queued', credit_cost: 2, source: 'generate' })
    expect(task.params).toMatchObject({ mode: 'guide', style: 'general' })
    expect((task.params as { guided: Record<string, string> }).guided).toMatchObject({
      personification: 'yes',
      clothingTop: 'a red hoodie',
      clothingPants: 'jeans',
      background: 'a beach',
    })
    // Re-encoded as JPEG whatever the file was called, under the task's own prefix.
    expect(task.input_keys).toHaveLength(1)
    expect(task.input_keys[0]).toMatch(new RegExp(`^tasks/${task.id}/\\d{4}/\\d{2}/[0-9a-f]{64}\\.jpg$`))
    expect(media.taskFiles()).toContain(task.input_keys[0])

    const ledger = await getDb().selectFrom('credit_transactions').selectAll().where('task_id', '=', task.id).execute()
    expect(ledger).toMatchObject([{ type: 'spend', amount: -2 }])
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 8, ledgerSum: 8 })

    const { rows: jobs } = await sql<{ task_identifier: string; max_attempts: number }>`
      SELECT task_identifier, max_attempts FROM graphile_worker.jobs WHERE key = ${task.id}
    `.execute(getDb())
    expect(jobs).toEqual([{ task_identifier: 'generate_image', max_attempts: 4 }])
  })

  test('Customize mode takes a prompt and up to five reference images; templates are marked as such', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const photos = await Promise.all(['#111111', '#222222', '#333333'].map((color) => petPhoto(color)))
    const custom = await submit(
      token,
      photos.map((bytes) => photoFile(bytes)),
      { style: 'fashion_female', prompt: 'My cat as a jazz singer' },
    )
    expect(custom.status).toBe(200)
    const template = await submit(token, [photoFile(photos[0])], {
      style: 'template',
      templatePrompt: 'A knight in shining armour',
      template_id: 'default',
    })
    expect(template.status).toBe(200)

    const [customTask, templateTask] = await tasksOf(user.id)
    expect(customTask.input_keys).toHaveLength(3)
    expect(customTask.params).toMatchObject({
      mode: 'customize',
      style: 'fashion_female',
      prompt: 'My cat as a jazz singer',
    })
    expect(templateTask).toMatchObject({ source: 'template' })
    expect(templateTask.params).toMatchObject({
      mode: 'template',
      templatePrompt: 'A knight in shining armour',
      templateId: 'default',
    })
  })

  test.each([
    ['no photo', async () => [], {}, 400, 'Please upload a pet photo first'],
    [
      'a text file renamed .jpg',
      async () => [photoFile(Buffer.from('definitely not an image '.repeat(50)), 'cat.jpg')],
      {},
      400,
      'Unsupported file type',
    ],
    [
      'an 11 MB file',
      async () => [photoFile(Buffer.alloc(11 * 1024 * 1024, 1), 'huge.jpg')],
      {},
      413,
      'File size should not exceed 10MB',
    ],
    [
      'seven images',
      async () => Array.from({ length: 7 }, () => photoFile(Buffer.alloc(100, 1))),
      { prompt: 'many' },
      400,
      'Upload the pet photo and at most 5 reference images',
    ],
    [
      // A photo for each of four pets and five references are the most one form carries (issue 41).
      'ten files',
      async () => Array.from({ length: 10 }, () => photoFile(Buffer.alloc(100, 1))),
      { prompt: 'many' },
      400,
      'At most 9 files',
    ],
    ['an unknown style', async () => [photoFile(await petPhoto())], { style: 'cubism' }, 400, 'Unknown style'],
    ['a 100 KB prompt', async () => [photoFile(await petPhoto())], { prompt: 'a'.repeat(100 * 1024) }, 413, 'too long'],
    [
      'references in Guide mode',
      async () => [photoFile(await petPhoto()), photoFile(await petPhoto('#ffffff'))],
      {},
      400,
      'only be added in Customize mode',
    ],
    [
      'a valid photo followed by a broken one',
      async () => [photoFile(await petPhoto()), photoFile(Buffer.from('GIF89a broken'), 'b.gif')],
      { prompt: 'two' },
      400,
      'Unsupported file type',
    ],
  ] as const)(
    '%s: %i with a clear message, no charge, no file left',
    async (_name, images, fields, status, message) => {
      const { user, token } = await createTestUser({ credits: 10 })
      const before = media.taskFiles()
      const answer = await submit(token, await images(), fields)
      expect(answer.status).toBe(status)
      expect(answer.body.message).toContain(message)
      expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 10, ledgerSum: 10 })
      expect(await tasksOf(user.id)).toEqual([])
      expect(media.taskFiles()).toEqual(before)
    },
  )

  test('too few credits: 402 with needPurchase, nothing charged, the stored photo deleted again', async () => {
    const { user, token } = await createTestUser({ credits: 1 })
    const before = media.taskFiles()
    const answer = await submit(token, [photoFile(await petPhoto('#abcdef'))])
    expect(answer.status).toBe(402)
    expect(answer.body).toEqual({ message: 'You need at least 2 credits to generate an image', needPurchase: true })
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 1, ledgerSum: 1 })
    expect(await tasksOf(user.id)).toEqual([])
    expect(media.taskFiles()).toEqual(before)
  })

  test('needs a signed-in user', async () => {
    const answer = await submit(undefined, [photoFile(await petPhoto())])
    expect(answer.status).toBe(401)
  })

  test('20 parallel submissions with credits for 5: exactly 5 succeed and the ledger adds up', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const photo = await petPhoto('#445566')
    const before = media.taskFiles()
    const answers = await Promise.all(Array.from({ length: 20 }, () => submit(token, [photoFile(photo)])))
    const statuses = answers.map((answer) => answer.status).sort()
    expect(statuses.filter((status) => status === 200)).toHaveLength(5)
    expect(statuses.filter((status) => status === 402)).toHaveLength(15)
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 0, ledgerSum: 0 })

    const tasks = await tasksOf(user.id)
    expect(tasks).toHaveLength(5)
    // Only the paid tasks kept their uploads.
    const added = media.taskFiles().filter((key) => !before.includes(key))
    expect(added.sort()).toEqual(tasks.flatMap((task) => task.input_keys).sort())
    expect(added).toHaveLength(5)
    const { rows } = await sql<{ count: number }>`
      SELECT count(*)::int AS count FROM graphile_worker.jobs
      WHERE key = ANY(${tasks.map((task) => task.id)}::text[])
    `.execute(getDb())
    expect(rows[0].count).toBe(5)
  })
})

describe('reading tasks', () => {
  test('the owner reads status, queue position and totals; anyone else gets a 404', async () => {
    const db = getDb()
    // Start from an empty queue so positions are this test's own.
    await db.deleteFrom('generation_tasks').where('status', 'in', ['queued', 'processing']).execute()
    const owner = await createTestUser({ credits: 10 })
    const other = await createTestUser({ credits: 10 })
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await submit(owner.token, [photoFile(await petPhoto())])).body.taskId)
    await startTaskAttempt(db, ids[0], 'local')

    const read = async (id: string, token?: string) => {
      const response = await callRoute(taskLoader, makeRequest(`/api/async-image/task/${id}`, { token }), { id })
      return { status: response.status, body: await response.json() }
    }
    const third = await read(ids[2], owner.token)
    expect(third.status).toBe(200)
    expect(third.body).toMatchObject({
      id: ids[2],
      type: 'image',
      status: 'queued',
      progress: 0,
      queuePosition: 2,
      totalInQueue: 2,
      runningTasks: 1,
      maxConcurrentTasks: 2,
      result: null,
      error: null,
      description: 'Generate pet portrait',
    })
    expect((await read(ids[0], owner.token)).body).toMatchObject({ status: 'processing', queuePosition: 0 })

    expect((await read(ids[2], other.token)).status).toBe(404)
    expect((await read('not-a-uuid', owner.token)).status).toBe(404)
    expect((await read(ids[2])).status).toBe(401)

    const today = await callRoute(todayLoader, makeRequest('/api/async-image/tasks/today', { token: owner.token }))
    const { tasks } = await today.json()
    expect(tasks.map((task: { id: string }) => task.id)).toEqual([...ids].reverse())
    const othersToday = await callRoute(
      todayLoader,
      makeRequest('/api/async-image/tasks/today', { token: other.token }),
    )
    expect((await othersToday.json()).tasks).toEqual([])
  })

  test('a completed task answers its image URL', async () => {
    const { token } = await createTestUser({ credits: 10 })
    const id = await completedTask(token)
    const response = await callRoute(taskLoader, makeRequest(`/api/async-image/task/${id}`, { token }), { id })
    const body = await response.json()
    expect(body).toMatchObject({
      status: 'completed',
      progress: 100,
      result: { imageUrl: expect.stringMatching(/^\/media\/tasks\//) },
    })
  })
})

describe('history and delete', () => {
  test('10 images a page, newest first, with their expiry date; only the user’s completed images', async () => {
    const { token } = await createTestUser({ credits: 30 })
    const other = await createTestUser({ credits: 10 })
    await completedTask(other.token)
    const ids: string[] = []
    for (let i = 0; i < 12; i++) ids.push(await completedTask(token))
    await submit(token, [photoFile(await petPhoto())]) // still queued: not in the history

    const page = async (query: string) => {
      const response = await callRoute(historyLoader, makeRequest(`/api/image/history${query}`, { token }))
      return response.json()
    }
    const first = await page('?page=1&limit=10')
    expect(first.pagination).toEqual({ total: 12, page: 1, limit: 10, pages: 2 })
    expect(first.data).toHaveLength(10)
    expect(first.data[0]._id).toBe(ids[11])
    const item = first.data[0]
    expect(item.imageUrl).toMatch(/^\/media\/tasks\//)
    const days = (Date.parse(item.expirationDate) - Date.parse(item.createdAt)) / 86_400_000
    expect(days).toBeCloseTo(10, 1)

    const second = await page('?page=2&limit=10')
    expect(second.data.map((entry: { _id: string }) => entry._id)).toEqual([ids[1], ids[0]])
    expect((await page('?page=abc')).pagination).toMatchObject({ page: 1, limit: 10 })
  })

  test('the owner deletes an image and its files; others, active tasks and other methods are refused', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const other = await createTestUser({ credits: 10 })
    const id = await completedTask(token)
    const files = media.taskFiles().filter((key) => key.startsWith(`tasks/${id}/`))
    expect(files.length).toBeGreaterThan(0)

    const remove = (taskId: string, as?: string, method = 'DELETE') =>
      callRoute(deleteAction, makeRequest(`/api/image/delete/${taskId}`, { method, token: as }), { id: taskId })

    expect((await remove(id, other.token)).status).toBe(404)
    expect((await remove(id, token, 'POST')).status).toBe(405)
    const queued = (await submit(token, [photoFile(await petPhoto())])).body.taskId
    const active = await remove(queued, token)
    expect(active.status).toBe(409)

    const deleted = await remove(id, token)
    expect(deleted.status).toBe(200)
    expect(await deleted.json()).toEqual({ message: 'Image deleted' })
    expect(media.taskFiles().filter((key) => key.startsWith(`tasks/${id}/`))).toEqual([])
    expect((await tasksOf(user.id)).map((task) => task.id)).toEqual([queued])
    expect((await remove(id, token)).status).toBe(404)
  })
})
