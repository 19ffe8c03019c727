import { loader as optionsLoader } from '#app/routes/api.prints.options.ts'
import { action as quoteAction } from '#app/routes/api.prints.quote.ts'
import { action as orderAction } from '#app/routes/api.prints.orders.ts'
import { action as callbackAction } from '#app/routes/api.prints.callback.$secret.ts'
import { systemStatus } from '#domain/operator/system-status.server.ts'
import { getDb } from '#platform/db.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { creditsOf } from '#tests/helpers/generation.ts'
import { finishedPortrait, testRecipient } from '#tests/helpers/prints.ts'

// Issue 39, item 1: without PRODIGI_API_KEY prints are not available, and nothing else changes.

delete process.env.PRODIGI_API_KEY

test('without a lab key the options say prints are not available and quotes and orders are refused', async () => {
  const { user, token } = await createTestUser({ credits: 500 })
  const { taskId } = await finishedPortrait(user.id)
  const options = await callRoute(optionsLoader, makeRequest(`/api/prints/options?taskId=${taskId}&index=0`, { token }))
  expect(options.status).toBe(200)
  expect(await options.json()).toEqual({
    available: false,
    message: expect.stringMatching(/not available/),
    products: [],
  })
  const quote = await callRoute(
    quoteAction,
    makeRequest('/api/prints/quote', {
      token,
      json: { taskId, index: 0, sku: 'GLOBAL-CAN-8X10', countryCode: 'GB', shippingMethod: 'Standard' },
    }),
  )
  expect(quote.status).toBe(404)
  expect((await quote.json()).message).toMatch(/not available/)
  const order = await callRoute(
    orderAction,
    makeRequest('/api/prints/orders', { token, json: { quoteId: taskId, recipient: testRecipient() } }),
  )
  expect(order.status).toBe(404)
  const callback = await callRoute(callbackAction, makeRequest('/api/prints/callback/anything', { json: {} }), {
    secret: 'anything',
  })
  expect(callback.status).toBe(404)
  expect(await creditsOf(user.id)).toBe(500)
  expect((await systemStatus(getDb())).printLab).toEqual({
    summary: expect.stringMatching(/^not configured/),
    mode: null,
  })
})
