import { getDb } from '#platform/db.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { petPhoto, photoFile, withOwnDataDir } from '#tests/helpers/generation.ts'
import { action, loader } from '#app/routes/generate-video.tsx'

withOwnDataDir()

const page = (token?: string, query = '') => callRoute(loader, makeRequest(`/generate-video${query}`, { token }))

function post(token: string, fields: Record<string, string>, image?: File) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  if (image) form.append('image', image)
  return callRoute(action, makeRequest('/generate-video', { method: 'POST', token, body: form }))
}

describe('/generate-video', () => {
  test('a guest is asked to log in; other roles get Access Restricted (403)', async () => {
    const guest = await page()
    expect(guest.status).toBe(401)
    expect(await guest.json()).toEqual({ message: 'Please log in first to generate videos' })
    for (const role of ['user', 'admin'] as const) {
      const { token } = await createTestUser({ role })
      const answer = await page(token)
      expect(answer.status).toBe(403)
      expect(await answer.json()).toEqual({ message: 'Video generation is only available to super administrators.' })
      // The form post is refused the same way, before anything is read or charged.
      expect((await post(token, { mode: 'text', prompt: 'A dog' })).status).toBe(403)
    }
  })

  test('a superadmin sees both costs from the system config', async () => {
    const { token } = await createTestUser({ role: 'superadmin' })
    const answer = await page(token)
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({ costs: { stable: 20, fast: 10 }, offlineRenderer: true, task: null })
  })

  test('without JavaScript: the form posts, redirects to the task, and the page shows it', async () => {
    const { user, token } = await createTestUser({ role: 'superadmin', credits: 30 })
    const answer = await post(
      token,
      { mode: 'image', prompt: '', aspectRatio: '16:9', resolution: '720p', quality: 'stable', creditCost: '1' },
      photoFile(await petPhoto()),
    )
    expect(answer.status).toBe(302)
    const location = answer.headers.get('location')!
    const taskId = new URL(location, 'http://localhost').searchParams.get('task')
    expect(location).toBe(`/generate-video?task=${taskId}`)
    const { task } = await (await page(token, `?task=${taskId}`)).json()
    expect(task).toMatchObject({ id: taskId, type: 'video', status: 'queued' })
    const { credits } = await getDb()
      .selectFrom('users')
      .select('credits')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow()
    expect(credits).toBe(10)
  })

  test('without JavaScript: bad input and too few credits come back as form errors', async () => {
    const { token } = await createTestUser({ role: 'superadmin', credits: 15 })
    const blank = await post(token, { mode: 'text', prompt: ' ' })
    expect(blank.status).toBe(400)
    expect((await blank.json()).result.error).toEqual({
      prompt: ['Please enter a prompt for text-to-video generation'],
    })

    const tooLarge = await post(token, { mode: 'image' }, photoFile(Buffer.alloc(11 * 1024 * 1024, 1), 'big.jpg'))
    expect(tooLarge.status).toBe(413)
    expect((await tooLarge.json()).result.error).toEqual({ '': ['File size should not exceed 10MB'] })

    const poor = await post(token, { mode: 'text', prompt: 'A cat', quality: 'stable' })
    expect(poor.status).toBe(402)
    const body = await poor.json()
    expect(body.needPurchase).toBe(true)
    expect(body.result.error['']).toEqual(['You need at least 20 credits to generate a video'])
  })
})
