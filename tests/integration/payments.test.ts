import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import sharp from 'sharp'
import { loader as walletLoader } from '#app/routes/api.config.usdt-wallet.ts'
import { loader as pendingLoader } from '#app/routes/api.image.pending-payment-proofs.ts'
import { action as reviewAction } from '#app/routes/api.image.review-payment-proof.$id.ts'
import { action as submitAction } from '#app/routes/api.image.submit-payment-proof.ts'
import { flushAnalytics } from '#domain/analytics/events.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { creditsOf, proofStatus, submitProof } from '#tests/helpers/payments.ts'

// Read lazily by getEnv() on first use, so setting them here (before any request) is enough.
process.env.USDT_TRC20_ADDRESS = 'TTestTrc20Wallet'
process.env.USDT_ERC20_ADDRESS = '0xTestErc20Wallet'
process.env.PAYPAL_ME_URL = 'https://paypal.me/pawtrait-test'

// The shape of a TRC20 transaction id (the default method): 64 hex characters.
const uniqueTransactionId = () => randomBytes(32).toString('hex').toUpperCase()

async function review(token: string, proofId: string, json: unknown) {
  const response = await callRoute(
    reviewAction,
    makeRequest(`/api/image/review-payment-proof/${proofId}`, { method: 'POST', token, json }),
    { id: proofId },
  )
  return { status: response.status, body: await response.json() }
}

async function pendingProof(token: string, creditAmount = '500') {
  const submitted = await submitProof(token, { creditAmount, transactionId: uniqueTransactionId() })
  expect(submitted.status).toBe(201)
  return submitted.body.proof as { id: string; creditAmount: number }
}

async function ledgerOf(userId: string) {
  return getDb()
    .selectFrom('credit_transactions')
    .select(['type', 'amount', 'payment_proof_id'])
    .where('user_id', '=', userId)
    .execute()
}

async function emailJobs(to: string) {
  const result = await sql<{ payload: { to: string; subject: string; text: string } }>`
    SELECT jobs.payload FROM graphile_worker._private_jobs jobs
    JOIN graphile_worker._private_tasks tasks ON tasks.id = jobs.task_id
    WHERE tasks.identifier = 'send_email'
  `.execute(getDb())
  return result.rows.map((row) => row.payload).filter((payload) => payload.to === to)
}

const pngBytes = () =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: '#c4543a' } })
    .png()
    .toBuffer()

describe('GET /api/config/usdt-wallet', () => {
  test('answers the configured wallets, with the TRC20 one as address', async () => {
    const response = await callRoute(walletLoader, makeRequest('/api/config/usdt-wallet'))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      address: 'TTestTrc20Wallet',
      trc20: 'TTestTrc20Wallet',
      erc20: '0xTestErc20Wallet',
      paypalMeUrl: 'https://paypal.me/pawtrait-test',
    })
  })
})

describe('POST /api/image/submit-payment-proof', () => {
  test('records a pending proof priced by the server at 5 USD per 100 credits', async () => {
    const { user, token } = await createTestUser({ credits: 0 })
    const transactionId = uniqueTransactionId()
    const result = await submitProof(token, {
      creditAmount: '500',
      paymentMethod: 'paypal_me',
      transactionId: `  ${transactionId}  `,
      paymentNote: 'Paid from my account',
    })
    expect(result.status).toBe(201)
    expect(result.body.message).toMatch(/submitted/i)
    expect(result.body.proof).toMatchObject({
      userId: { _id: user.id, name: user.name, email: user.email },
      creditAmount: 500,
      amount: 25,
      paymentMethod: 'paypal_me',
      transactionId,
      paymentNote: 'Paid from my account',
      screenshotUrl: null,
      status: 'pending',
    })
    const row = await getDb()
      .selectFrom('payment_proofs')
      .selectAll()
      .where('id', '=', result.body.proof.id)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ amount_cents: 2500, credit_amount: 500, status: 'pending', user_id: user.id })
    expect(await creditsOf(user.id)).toBe(0)
  })

  test('defaults the method to USDT TRC20 and accepts a paymentAmount equal to the price', async () => {
    const { token } = await createTestUser()
    const result = await submitProof(token, {
      creditAmount: '1200',
      paymentAmount: '60',
      transactionId: uniqueTransactionId(),
    })
    expect(result.status).toBe(201)
    expect(result.body.proof).toMatchObject({ paymentMethod: 'usdt_trc20', creditAmount: 1200, amount: 60 })
  })

  test('stores a screenshot re-encoded from its content and answers a signed URL of it', async () => {
    const { token } = await createTestUser()
    const screenshot = new File([await pngBytes()], 'receipt.png', { type: 'image/png' })
    const result = await submitProof(token, { creditAmount: '100', transactionId: uniqueTransactionId(), screenshot })
    expect(result.status).toBe(201)
    const { id, screenshotUrl } = result.body.proof as { id: string; screenshotUrl: string }
    expect(screenshotUrl).toMatch(new RegExp(`^/payment-screenshots/${id}\\?expires=\\d+&signature=[\\w-]{43}$`))
    const { screenshot_key: key } = await getDb()
      .selectFrom('payment_proofs')
      .select('screenshot_key')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(key).toMatch(/^payments\/\d{4}\/\d{2}\/[0-9a-f]{64}\.jpg$/)
    const stored = await getStorage().stat(key!)
    expect(stored?.contentType).toBe('image/jpeg')
  })

  test.each([
    ['not a multiple of 100', { creditAmount: '150' }, 'Credit amount must be a multiple of 100'],
    ['negative', { creditAmount: '-100' }, 'Credit amount must be at least 100'],
    ['zero', { creditAmount: '0' }, 'Credit amount must be at least 100'],
    ['huge', { creditAmount: '1000000000000' }, 'Credit amount cannot exceed 100000'],
    ['not a number', { creditAmount: 'lots' }, 'Credit amount must be a number'],
    ['fractional', { creditAmount: '100.5' }, 'Credit amount must be a whole number'],
    ['missing', { creditAmount: '' }, 'Please choose a credit amount'],
    ['an unknown method', { paymentMethod: 'bitcoin' }, 'Please choose a payment method'],
    ['a wrong paymentAmount', { paymentAmount: '1' }, 'Payment amount must be 25.00 USD for 500 credits'],
    ['a blank transaction ID', { transactionId: '   ' }, 'Transaction ID is required'],
    ['a missing transaction ID', { transactionId: '' }, 'Transaction ID is required'],
    ['a screenshot sent as text', { screenshot: 'iVBORw0KGgo=' }, 'The screenshot must be an image file'],
  ])('refuses %s with a 400 and a clear message', async (_case, override, message) => {
    const { user, token } = await createTestUser()
    const result = await submitProof(token, { creditAmount: '500', transactionId: uniqueTransactionId(), ...override })
    expect(result).toEqual({ status: 400, body: { message } })
    const rows = await getDb().selectFrom('payment_proofs').select('id').where('user_id', '=', user.id).execute()
    expect(rows).toHaveLength(0)
  })

  test('refuses a screenshot that is not an image, whatever its name and declared type', async () => {
    const { token } = await createTestUser()
    const fake = new File(['<html><script>alert(1)</script></html>'], 'receipt.png', { type: 'image/png' })
    const result = await submitProof(token, {
      creditAmount: '100',
      transactionId: uniqueTransactionId(),
      screenshot: fake,
    })
    expect(result.status).toBe(400)
    expect(result.body.message).toMatch(/Unsupported file type/)
  })

  test('refuses a body that is not multipart form data', async () => {
    const { token } = await createTestUser()
    const response = await callRoute(
      submitAction,
      makeRequest('/api/image/submit-payment-proof', { token, json: { creditAmount: 100, transactionId: 'x' } }),
    )
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ message: 'Invalid form data' })
  })

  test('a transaction ID is accepted once per method, case-insensitively, and again on another method', async () => {
    const first = await createTestUser()
    const second = await createTestUser()
    const transactionId = `0x${uniqueTransactionId()}`
    const accepted = await submitProof(first.token, { creditAmount: '100', paymentMethod: 'usdt_erc20', transactionId })
    expect(accepted.status).toBe(201)

    const duplicate = await submitProof(second.token, {
      creditAmount: '200',
      paymentMethod: 'usdt_erc20',
      transactionId: transactionId.toLowerCase(),
    })
    expect(duplicate).toEqual({
      status: 409,
      body: { message: 'This transaction ID has already been submitted for this payment method' },
    })

    const otherMethod = await submitProof(second.token, {
      creditAmount: '200',
      paymentMethod: 'paypal_me',
      transactionId,
    })
    expect(otherMethod.status).toBe(201)
  })

  test('guests get a 401', async () => {
    const result = await submitProof(undefined, { creditAmount: '100', transactionId: uniqueTransactionId() })
    expect(result.status).toBe(401)
  })
})

describe('GET /api/image/pending-payment-proofs', () => {
  test('is for superadmins only and lists pending proofs with the owner and the note as sent', async () => {
    const buyer = await createTestUser()
    const admin = await createTestUser({ role: 'admin' })
    const superadmin = await createTestUser({ role: 'superadmin' })
    const note = '<img src=x onerror="alert(1)"> thanks'
    const submitted = await submitProof(buyer.token, {
      creditAmount: '300',
      transactionId: uniqueTransactionId(),
      paymentNote: note,
    })

    const list = (token?: string) =>
      callRoute(pendingLoader, makeRequest('/api/image/pending-payment-proofs', { token }))
    expect((await list()).status).toBe(401)
    expect((await list(buyer.token)).status).toBe(403)
    expect((await list(admin.token)).status).toBe(403)

    const response = await list(superadmin.token)
    expect(response.status).toBe(200)
    const proofs = await response.json()
    const mine = proofs.find((proof: { _id: string }) => proof._id === submitted.body.proof.id)
    expect(mine).toMatchObject({
      userId: { _id: buyer.user.id, name: buyer.user.name, email: buyer.user.email },
      creditAmount: 300,
      amount: 15,
      paymentNote: note,
      status: 'pending',
    })

    await review(superadmin.token, mine._id, { approved: true })
    const after = await (await list(superadmin.token)).json()
    expect(after.map((proof: { _id: string }) => proof._id)).not.toContain(mine._id)
  })
})

describe('POST /api/image/review-payment-proof/{id}', () => {
  test('normal users and admins get 403, even on their own proof, and nothing is credited', async () => {
    const buyer = await createTestUser({ credits: 0 })
    const admin = await createTestUser({ role: 'admin' })
    const proof = await pendingProof(buyer.token)

    const own = await review(buyer.token, proof.id, { approved: true })
    expect(own).toEqual({ status: 403, body: { message: 'Access denied' } })
    expect((await review(admin.token, proof.id, { approved: true })).status).toBe(403)
    expect(await creditsOf(buyer.user.id)).toBe(0)
  })

  test('a superadmin cannot approve their own proof (four-eyes rule)', async () => {
    const superadmin = await createTestUser({ role: 'superadmin', credits: 0 })
    const proof = await pendingProof(superadmin.token)
    const result = await review(superadmin.token, proof.id, { approved: true })
    expect(result).toEqual({ status: 403, body: { message: 'You cannot review your own payment proof' } })
    expect(await creditsOf(superadmin.user.id)).toBe(0)
    expect(await proofStatus(proof.id)).toBe('pending')
  })

  test('ten concurrent approvals credit exactly once; the ledger and the balance agree', async () => {
    const buyer = await createTestUser({ credits: 7 })
    const superadmin = await createTestUser({ role: 'superadmin' })
    const proof = await pendingProof(buyer.token, '1000')

    const results = await Promise.all(
      Array.from({ length: 10 }, () => review(superadmin.token, proof.id, { approved: true })),
    )
    const statuses = results.map((result) => result.status).sort()
    expect(statuses).toEqual([200, ...Array(9).fill(409)])
    for (const refused of results.filter((result) => result.status === 409)) {
      expect(refused.body).toEqual({ message: 'This payment proof has already been reviewed' })
    }

    expect(await creditsOf(buyer.user.id)).toBe(1007)
    const ledger = await ledgerOf(buyer.user.id)
    expect(ledger.filter((entry) => entry.type === 'purchase')).toEqual([
      { type: 'purchase', amount: 1000, payment_proof_id: proof.id },
    ])
    expect(ledger.reduce((sum, entry) => sum + entry.amount, 0)).toBe(1007)

    const row = await getDb().selectFrom('payment_proofs').selectAll().where('id', '=', proof.id).executeTakeFirst()
    expect(row).toMatchObject({ status: 'approved', reviewer_id: superadmin.user.id })
    expect(row?.reviewed_at).toBeInstanceOf(Date)

    const emails = await emailJobs(buyer.user.email)
    expect(emails).toHaveLength(1)
    expect(emails[0].subject).toMatch(/approved/i)
    expect(emails[0].text).toContain('1000 credits')
  })

  test('a rejection needs a reason, is emailed with it, and the proof cannot be approved afterwards', async () => {
    const buyer = await createTestUser({ credits: 0 })
    const superadmin = await createTestUser({ role: 'superadmin' })
    const proof = await pendingProof(buyer.token)

    const noReason = await review(superadmin.token, proof.id, { approved: false })
    expect(noReason).toEqual({ status: 400, body: { message: 'Please give a reason for the rejection' } })
    const blankReason = await review(superadmin.token, proof.id, { approved: false, reason: '   ' })
    expect(blankReason.status).toBe(400)

    const reason = 'No payment with this transaction ID reached our wallet'
    const rejected = await review(superadmin.token, proof.id, { approved: false, reason })
    expect(rejected.status).toBe(200)
    expect(rejected.body).toMatchObject({
      message: 'Payment proof rejected',
      proof: { status: 'rejected', reviewReason: reason },
    })

    const approveLater = await review(superadmin.token, proof.id, { approved: true })
    expect(approveLater).toEqual({ status: 409, body: { message: 'This payment proof has already been reviewed' } })
    expect(await creditsOf(buyer.user.id)).toBe(0)
    expect(await ledgerOf(buyer.user.id)).toEqual([])

    const emails = await emailJobs(buyer.user.email)
    expect(emails).toHaveLength(1)
    expect(emails[0].subject).toMatch(/rejected/i)
    expect(emails[0].text).toContain(`Reason: ${reason}`)
  })

  test('a submission and its approval feed the analytics (payment method, amount, credits)', async () => {
    const buyer = await createTestUser()
    const superadmin = await createTestUser({ role: 'superadmin' })
    const submitted = await submitProof(buyer.token, {
      creditAmount: '200',
      paymentMethod: 'paypal_me',
      transactionId: uniqueTransactionId(),
    })
    await review(superadmin.token, submitted.body.proof.id, { approved: true })
    await flushAnalytics()

    const events = await getDb()
      .selectFrom('analytics_events')
      .select(['type', 'details'])
      .where('user_id', '=', buyer.user.id)
      .where('type', 'in', ['payment', 'credit_purchase'])
      .orderBy('id')
      .execute()
    const details = { paymentProofId: submitted.body.proof.id, paymentMethod: 'paypal_me', amount: 10, credits: 200 }
    expect(events).toEqual([
      { type: 'payment', details },
      { type: 'credit_purchase', details },
    ])
  })

  test('unknown or malformed ids are 404 and a bad body is 400', async () => {
    const superadmin = await createTestUser({ role: 'superadmin' })
    const unknown = await review(superadmin.token, '00000000-0000-4000-8000-000000000000', { approved: true })
    expect(unknown).toEqual({ status: 404, body: { message: 'Payment proof not found' } })
    expect((await review(superadmin.token, 'not-a-uuid', { approved: true })).status).toBe(404)

    const buyer = await createTestUser()
    const proof = await pendingProof(buyer.token)
    expect(await review(superadmin.token, proof.id, {})).toEqual({
      status: 400,
      body: { message: 'approved must be true or false' },
    })
    expect((await review(superadmin.token, proof.id, { approved: 'yes' })).status).toBe(400)
  })
})
