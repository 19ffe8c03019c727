import { randomBytes } from 'node:crypto'
import { action as reviewPageAction, loader as reviewPageLoader } from '#app/routes/payment-review.tsx'
import { action as purchaseAction, loader as purchaseLoader } from '#app/routes/purchase-credits.tsx'
import { getSystemConfig } from '#domain/credits/system-config.server.ts'
import { getDb } from '#platform/db.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { proofStatus } from '#tests/helpers/payments.ts'

// The page forms as a browser without JavaScript posts them.
function purchase(token: string | undefined, fields: Record<string, string>) {
  const body = new FormData()
  for (const [name, value] of Object.entries(fields)) body.append(name, value)
  body.append('screenshot', new File([], ''))
  return callRoute(purchaseAction, makeRequest('/purchase-credits', { method: 'POST', token, body }))
}

function postReviewPage(token: string, fields: Record<string, string>) {
  return callRoute(
    reviewPageAction,
    makeRequest('/payment-review', {
      method: 'POST',
      token,
      body: new URLSearchParams(fields),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
  )
}

// Shaped like a TRC20 transaction id (64 hex); an ERC20 hash is this with 0x in front.
const transactionId = () => randomBytes(32).toString('hex')

describe('/purchase-credits', () => {
  test('guests are sent to /login', async () => {
    const response = await callRoute(purchaseLoader, makeRequest('/purchase-credits'))
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('/login?redirectTo=%2Fpurchase-credits')
  })

  test('a package purchase records a pending proof and answers the success message', async () => {
    const { user, token } = await createTestUser()
    const response = await purchase(token, {
      creditOption: '300',
      customCredits: '',
      paymentMethod: 'usdt_erc20',
      transactionId: `0x${transactionId()}`,
      paymentNote: '',
    })
    expect(response.status).toBe(200)
    expect((await response.json()).message).toMatch(/reviewed within 24 hours/)
    const proof = await getDb()
      .selectFrom('payment_proofs')
      .selectAll()
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow()
    expect(proof).toMatchObject({ credit_amount: 300, amount_cents: 1500, payment_method: 'usdt_erc20', note: '' })
  })

  test('a custom amount must be a multiple of 100; the error is on the custom field', async () => {
    const { user, token } = await createTestUser()
    const response = await purchase(token, {
      creditOption: 'custom',
      customCredits: '250',
      paymentMethod: 'paypal_me',
      transactionId: transactionId(),
    })
    expect(response.status).toBe(400)
    const { result } = await response.json()
    expect(result.error).toEqual({ customCredits: ['Credit amount must be a multiple of 100'] })
    const rows = await getDb().selectFrom('payment_proofs').select('id').where('user_id', '=', user.id).execute()
    expect(rows).toHaveLength(0)

    const accepted = await purchase(token, {
      creditOption: 'custom',
      customCredits: '2500',
      paymentMethod: 'paypal_me',
      transactionId: transactionId(),
    })
    expect(accepted.status).toBe(200)
    const proof = await getDb()
      .selectFrom('payment_proofs')
      .select(['credit_amount', 'amount_cents'])
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow()
    expect(proof).toEqual({ credit_amount: 2500, amount_cents: 12500 })
  })

  test('a duplicate transaction ID is shown as a form error, keeping the typed values', async () => {
    const { token } = await createTestUser()
    const fields = { creditOption: '100', paymentMethod: 'usdt_trc20', transactionId: transactionId() }
    expect((await purchase(token, fields)).status).toBe(200)
    const response = await purchase(token, fields)
    expect(response.status).toBe(409)
    const { result } = await response.json()
    expect(result.error['']).toEqual(['This transaction ID has already been submitted for this payment method'])
    expect(result.initialValue).toMatchObject({ transactionId: fields.transactionId, creditOption: '100' })
  })

  test('a missing transaction ID is a field error', async () => {
    const { token } = await createTestUser()
    const response = await purchase(token, { creditOption: '100', paymentMethod: 'usdt_trc20', transactionId: '' })
    expect(response.status).toBe(400)
    expect((await response.json()).result.error).toEqual({ transactionId: ['Transaction ID is required'] })
  })

  test('an ERC20 hash without 0x and a bad custom amount are both field errors', async () => {
    const { token } = await createTestUser()
    const response = await purchase(token, {
      creditOption: 'custom',
      customCredits: '250',
      paymentMethod: 'usdt_erc20',
      transactionId: transactionId(),
    })
    expect(response.status).toBe(400)
    expect((await response.json()).result.error).toEqual({
      transactionId: ['A USDT (ERC20) transaction hash is 0x followed by 64 hexadecimal characters (0-9, a-f)'],
      customCredits: ['Credit amount must be a multiple of 100'],
    })
  })
})

describe('/payment-review', () => {
  test('guests go to /login; users and admins get a 403 (Access Denied), not a redirect', async () => {
    const guest = await callRoute(reviewPageLoader, makeRequest('/payment-review'))
    expect(guest.status).toBe(302)
    for (const role of ['user', 'admin'] as const) {
      const { token } = await createTestUser({ role })
      expect((await callRoute(reviewPageLoader, makeRequest('/payment-review', { token }))).status).toBe(403)
      expect((await postReviewPage(token, { intent: 'settings', newUserBonusCredits: '1' })).status).toBe(403)
    }
  })

  test('lists pending proofs and approves one through the plain form', async () => {
    const buyer = await createTestUser({ credits: 0 })
    const superadmin = await createTestUser({ role: 'superadmin' })
    await purchase(buyer.token, { creditOption: '200', paymentMethod: 'paypal_me', transactionId: transactionId() })

    const page = await callRoute(reviewPageLoader, makeRequest('/payment-review', { token: superadmin.token }))
    const { proofs, settings } = await page.json()
    expect(settings).toEqual(await getSystemConfig(getDb()))
    const proof = proofs.find((item: { userId: { _id: string } }) => item.userId._id === buyer.user.id)
    expect(proof).toMatchObject({ creditAmount: 200, amount: 10, userId: { email: buyer.user.email } })

    const approved = await postReviewPage(superadmin.token, { intent: 'approve', proofId: proof.id, reason: '' })
    expect(approved.status).toBe(200)
    expect((await approved.json()).message).toBe(`Approved: 200 credits added to ${buyer.user.name}'s account.`)
    const user = await getDb().selectFrom('users').select('credits').where('id', '=', buyer.user.id).executeTakeFirst()
    expect(user?.credits).toBe(200)

    const again = await postReviewPage(superadmin.token, { intent: 'reject', proofId: proof.id, reason: 'late' })
    expect(again.status).toBe(409)
    expect((await again.json()).result.error['']).toEqual(['This payment proof has already been reviewed'])
  })

  test('rejecting without a reason is a field error and leaves the proof pending', async () => {
    const buyer = await createTestUser()
    const superadmin = await createTestUser({ role: 'superadmin' })
    await purchase(buyer.token, { creditOption: '100', paymentMethod: 'usdt_trc20', transactionId: transactionId() })
    const proof = await getDb()
      .selectFrom('payment_proofs')
      .select('id')
      .where('user_id', '=', buyer.user.id)
      .executeTakeFirstOrThrow()

    const response = await postReviewPage(superadmin.token, { intent: 'reject', proofId: proof.id, reason: '' })
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body.form).toBe(proof.id)
    expect(body.result.error).toEqual({ reason: ['Please give a reason for the rejection'] })
    expect(await proofStatus(proof.id)).toBe('pending')
  })

  test('the settings form saves the four costs and refuses negative or fractional values', async () => {
    const superadmin = await createTestUser({ role: 'superadmin' })
    const settings = {
      newUserBonusCredits: '15',
      imageGenerationCreditCost: '3',
      videoGenerationCreditCost: '25',
      fastVideoGenerationCreditCost: '12',
    }
    const refused = await postReviewPage(superadmin.token, {
      intent: 'settings',
      ...settings,
      imageGenerationCreditCost: '-1',
      videoGenerationCreditCost: '2.5',
    })
    expect(refused.status).toBe(400)
    expect((await refused.json()).result.error).toEqual({
      imageGenerationCreditCost: ['Image generation cost cannot be negative'],
      videoGenerationCreditCost: ['Video generation cost (Stable) must be a whole number'],
    })

    const saved = await postReviewPage(superadmin.token, {
      intent: 'settings',
      ...settings,
      freeLikenessFixes: '2',
      upscaleCost: '3',
      hdImageCost: '7',
    })
    expect(saved.status).toBe(200)
    expect((await saved.json()).message).toBe('System settings updated successfully')
    expect(await getSystemConfig(getDb())).toEqual({
      newUserBonusCredits: 15,
      imageGenerationCreditCost: 3,
      videoGenerationCreditCost: 25,
      fastVideoGenerationCreditCost: 12,
      freeLikenessFixes: 2,
      upscaleCost: 3,
      hdImageCost: 7,
      referralCredits: 20,
      referralMaxPerMonth: 10,
      printMarkup: 1.6,
      extraPetCost: 1,
    })
  })
})
