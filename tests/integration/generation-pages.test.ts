import { completeTask, startTaskAttempt } from '#domain/generation/task-states.server.ts'
import { getDb } from '#platform/db.server.ts'
import { action as generateAction, loader as generateLoader } from '#app/routes/generate.tsx'
import { action as historyAction, loader as historyLoader } from '#app/routes/history.tsx'
import { loader as creditHistoryLoader } from '#app/routes/credit-history.tsx'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { petPhoto, photoFile, submitGeneration, withOwnDataDir } from '#tests/helpers/generation.ts'

withOwnDataDir()

function pagePost(token: string | undefined, images: File[], fields: Record<string, string>) {
  const form = new FormData()
  for (const image of images) form.append('images', image)
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  return callRoute(generateAction, makeRequest('/generate', { method: 'POST', token, body: form }))
}

describe('/generate without JavaScript', () => {
  test('a valid form queues the task and shows it on the page', async () => {
    const { token } = await createTestUser({ credits: 10 })
    const response = await pagePost(token, [photoFile(await petPhoto())], { style: 'general', mode: 'guide' })
    expect(response.status).toBe(302)
    const location = response.headers.get('location') ?? ''
    expect(location).toMatch(/^\/generate\?task=[0-9a-f-]{36}$/)

    const page = await (await callRoute(generateLoader, makeRequest(location, { token }))).json()
    expect(page).toMatchObject({ cost: 2, offlineRenderer: true, task: { status: 'queued', type: 'image' } })
    expect(page.styles.map((style: { value: string }) => style.value)).toEqual([
      'general',
      'fashion_female',
      'fashion_male',
    ])

    const stranger = await createTestUser()
    const theirView = await (await callRoute(generateLoader, makeRequest(location, { token: stranger.token }))).json()
    expect(theirView.task).toBeNull()
  })

  test('errors come back as form errors: a field error, and the 402 with needPurchase', async () => {
    const { token } = await createTestUser({ credits: 1 })
    const missing = await pagePost(token, [], { style: 'general' })
    expect(missing.status).toBe(400)
    expect((await missing.json()).result.error.images).toEqual(['Please upload a pet photo first'])

    const broke = await pagePost(token, [photoFile(await petPhoto())], { style: 'general' })
    expect(broke.status).toBe(402)
    const body = await broke.json()
    expect(body.needPurchase).toBe(true)
    expect(body.result.error['']).toEqual(['You need at least 2 credits to generate an image'])
  })

  test("the gallery's Use template form (style template) lands on the new task's page, not on JSON", async () => {
    const { token } = await createTestUser({ credits: 10 })
    const response = await pagePost(token, [photoFile(await petPhoto())], {
      style: 'template',
      templatePrompt: 'A dog in a space suit',
      prompt: '',
      template_id: '00000000-0000-4000-8000-000000000000',
    })
    expect(response.status).toBe(302)
    const location = response.headers.get('location') ?? ''
    expect(location).toMatch(/^\/generate\?task=[0-9a-f-]{36}$/)
    const page = await (await callRoute(generateLoader, makeRequest(location, { token }))).json()
    expect(page.task).toMatchObject({ status: 'queued', type: 'image' })
  })

  test('a guest posting is sent to log in', async () => {
    const response = await pagePost(undefined, [photoFile(await petPhoto())], { style: 'general' })
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toMatch(/^\/login/)
  })
})

describe('/history', () => {
  test('lists completed images and deletes the owner’s own only', async () => {
    const { token } = await createTestUser({ credits: 10 })
    const other = await createTestUser({ credits: 10 })
    const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
    const db = getDb()
    const started = await startTaskAttempt(db, body.taskId, 'local')
    await completeTask(db, body.taskId, started!.input_keys[0])

    const page = await (await callRoute(historyLoader, makeRequest('/history?type=image', { token }))).json()
    expect(page.items.map((item: { id: string }) => item.id)).toEqual([body.taskId])
    const videos = await (await callRoute(historyLoader, makeRequest('/history?type=video', { token }))).json()
    expect(videos).toMatchObject({ kind: 'video', items: [], pagination: { total: 0 } })

    const remove = (as: string) => {
      const form = new FormData()
      form.append('id', body.taskId)
      form.append('type', 'image')
      return callRoute(
        historyAction,
        makeRequest('/history?type=image&page=1', { method: 'POST', token: as, body: form }),
      )
    }
    const refused = await remove(other.token)
    expect(refused.status).toBe(404)
    expect((await refused.json()).result.error['']).toEqual(['Image not found'])
    const done = await remove(token)
    expect(done.status).toBe(302)
    expect(done.headers.get('location')).toBe('/history?type=image&page=1')
    const after = await (await callRoute(historyLoader, makeRequest('/history', { token }))).json()
    expect(after.items).toEqual([])
  })

  test('a page past the end goes to the last page', async () => {
    const { token } = await createTestUser({ credits: 10 })
    const { body } = await submitGeneration(token, [photoFile(await petPhoto())])
    const started = await startTaskAttempt(getDb(), body.taskId, 'local')
    await completeTask(getDb(), body.taskId, started!.input_keys[0])
    const response = await callRoute(historyLoader, makeRequest('/history?type=image&page=3', { token }))
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('/history?type=image&page=1')
  })
})

test('/credit-history shows the ledger and the balance, and needs a session', async () => {
  const { token } = await createTestUser({ credits: 10 })
  await submitGeneration(token, [photoFile(await petPhoto())])
  const page = await (await callRoute(creditHistoryLoader, makeRequest('/credit-history', { token }))).json()
  expect(page.credits).toBe(8)
  expect(page.history.map((entry: { type: string; amount: number }) => [entry.type, entry.amount])).toEqual([
    ['spend', -2],
    ['earn', 10],
  ])
  const guest = await callRoute(creditHistoryLoader, makeRequest('/credit-history'))
  expect(guest.status).toBe(302)
})
