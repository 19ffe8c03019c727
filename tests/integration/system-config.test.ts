import { defaultSystemConfig } from '#domain/credits/system-config.server.ts'
import { createUser } from '#domain/accounts/user.server.ts'
import { action, loader } from '#app/routes/api.system-config.ts'
import { getDb } from '#platform/db.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'

const newSettings = {
  newUserBonusCredits: 25,
  imageGenerationCreditCost: 4,
  videoGenerationCreditCost: 30,
  fastVideoGenerationCreditCost: 0,
}

async function getConfig() {
  const response = await callRoute(loader, makeRequest('/api/system-config'))
  return { status: response.status, body: await response.json() }
}

async function putConfig(token: string | undefined, json: unknown, method = 'PUT') {
  const response = await callRoute(action, makeRequest('/api/system-config', { method, token, json }))
  return { status: response.status, body: await response.json() }
}

test('GET answers the four costs to anyone, starting from the spec defaults', async () => {
  expect(await getConfig()).toEqual({ status: 200, body: defaultSystemConfig })
})

test('PUT is for superadmins only', async () => {
  expect((await putConfig(undefined, newSettings)).status).toBe(401)
  for (const role of ['user', 'admin'] as const) {
    const { token } = await createTestUser({ role })
    expect(await putConfig(token, newSettings)).toEqual({ status: 403, body: { message: 'Access denied' } })
  }
  expect((await getConfig()).body).toEqual(defaultSystemConfig)
})

test.each([
  ['a negative value', { imageGenerationCreditCost: -1 }, 'Image generation cost cannot be negative'],
  ['a fraction', { videoGenerationCreditCost: 2.5 }, 'Video generation cost (Stable) must be a whole number'],
  ['a string', { newUserBonusCredits: 'ten' }, 'New user bonus credits must be a number'],
  ['a huge number', { fastVideoGenerationCreditCost: 1e12 }, 'Fast video generation cost cannot exceed 1000000'],
  ['a missing field', { newUserBonusCredits: undefined }, 'New user bonus credits is required'],
])('PUT refuses %s with a 400 naming the setting', async (_case, override, message) => {
  const { token } = await createTestUser({ role: 'superadmin' })
  expect(await putConfig(token, { ...newSettings, ...override })).toEqual({ status: 400, body: { message } })
  expect((await getConfig()).body).toEqual(defaultSystemConfig)
})

test('PUT refuses malformed JSON and other methods', async () => {
  const { token } = await createTestUser({ role: 'superadmin' })
  const malformed = await callRoute(
    action,
    makeRequest('/api/system-config', {
      method: 'PUT',
      token,
      body: '{"newUserBonusCredits":',
      headers: { 'content-type': 'application/json' },
    }),
  )
  expect(malformed.status).toBe(400)
  expect((await putConfig(token, newSettings, 'POST')).status).toBe(405)
})

test('a superadmin PUT answers message and settings, and the new costs apply at once', async () => {
  const { token } = await createTestUser({ role: 'superadmin' })
  expect(await putConfig(token, newSettings)).toEqual({
    status: 200,
    body: { message: 'System settings updated successfully', settings: newSettings },
  })
  // Settings added since the spec's four (freeLikenessFixes, upscaleCost, the referral reward) keep their values;
  // HD's price, never set, follows the image cost (twice it).
  expect((await getConfig()).body).toEqual({
    ...newSettings,
    freeLikenessFixes: 1,
    hdImageCost: 8,
    upscaleCost: 2,
    referralCredits: 20,
    referralMaxPerMonth: 10,
    printMarkup: 1.6,
    extraPetCost: 1,
  })

  // Registration reads the bonus from the saved configuration.
  const user = await createUser(getDb(), { email: 'after-config@example.com', name: 'After', password: 'secret1' })
  expect(user.credits).toBe(25)
})

test('the print markup is a factor with two decimals, never below the lab’s cost', async () => {
  const { token } = await createTestUser({ role: 'superadmin' })
  expect((await putConfig(token, { ...newSettings, printMarkup: 0.9 })).status).toBe(400)
  expect((await putConfig(token, { ...newSettings, printMarkup: 1.234 })).status).toBe(400)
  expect((await putConfig(token, { ...newSettings, printMarkup: 2.25 })).status).toBe(200)
  expect((await getConfig()).body.printMarkup).toBe(2.25)
})
