import { setCredits } from '#domain/credits/credits.server.ts'
import { getDb } from '#platform/db.server.ts'
import { loader } from '#app/routes/api.image.credit-history.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { petPhoto, photoFile, submitGeneration, withOwnDataDir } from '#tests/helpers/generation.ts'

withOwnDataDir()

test('GET /api/image/credit-history answers the ledger, newest first, and the balance', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  const other = await createTestUser({ credits: 10 })
  await submitGeneration(token, [photoFile(await petPhoto())])
  await getDb()
    .transaction()
    .execute((tx) => setCredits(tx, user.id, 20, 'Adjusted by an administrator'))

  const response = await callRoute(loader, makeRequest('/api/image/credit-history', { token }))
  expect(response.status).toBe(200)
  const body = await response.json()
  expect(body.credits).toBe(20)
  expect(body.history).toEqual([
    { type: 'earn', amount: 12, description: 'Adjusted by an administrator', createdAt: expect.any(String) },
    { type: 'spend', amount: -2, description: 'Image generation', createdAt: expect.any(String) },
    { type: 'earn', amount: 10, description: 'New user bonus', createdAt: expect.any(String) },
  ])
  const othersView = await (
    await callRoute(loader, makeRequest('/api/image/credit-history', { token: other.token }))
  ).json()
  expect(othersView.history).toHaveLength(1)
})

test('without a session it is a 401', async () => {
  const response = await callRoute(loader, makeRequest('/api/image/credit-history'))
  expect(response.status).toBe(401)
  expect(await response.json()).toEqual({ message: 'Authentication expired, please log in again' })
})
