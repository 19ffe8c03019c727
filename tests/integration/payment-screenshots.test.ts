import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import sharp from 'sharp'
import { loader as mediaLoader } from '#app/routes/media.$.ts'
import { loader as screenshotLoader } from '#app/routes/payment-screenshots.$id.ts'
import { loader as pendingLoader } from '#app/routes/api.image.pending-payment-proofs.ts'
import { action as reviewAction } from '#app/routes/api.image.review-payment-proof.$id.ts'
import { action as deleteAction } from '#app/routes/api.userManagement.users.$id.ts'
import { signedScreenshotUrl } from '#domain/payments/payment-screenshots.server.ts'
import { getDb, getPool } from '#platform/db.server.ts'
import { s3StorageEnv, startFakeS3 } from '#tests/fakes/s3.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { withOwnDataDir } from '#tests/helpers/generation.ts'
import { submitProof } from '#tests/helpers/payments.ts'
import { startWebProcess } from '#tests/helpers/web-process.ts'

// Decision 0027: payment screenshots are served only at short-lived signed URLs, given to the
// owner and super administrators, privately cached; deleting the account deletes them from storage.

const media = withOwnDataDir()
const db = getDb()

const transactionId = () => randomBytes(32).toString('hex').toUpperCase()
const screenshotBytes = (color: string) =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: color } })
    .png()
    .toBuffer()
const screenshotFile = async (color: string) =>
  new File([await screenshotBytes(color)], 'receipt.png', { type: 'image/png' })

async function proofWithScreenshot(token: string, color = '#c4543a') {
  const submitted = await submitProof(token, {
    creditAmount: '100',
    transactionId: transactionId(),
    paymentNote: 'Sent from the account of Jane Doe',
    screenshot: await screenshotFile(color),
  })
  expect(submitted.status).toBe(201)
  return submitted.body.proof as { id: string; screenshotUrl: string }
}

const keyOf = async (proofId: string) =>
  (await db.selectFrom('payment_proofs').select('screenshot_key').where('id', '=', proofId).executeTakeFirstOrThrow())
    .screenshot_key!

const fetchScreenshot = (url: string, headers: Record<string, string> = {}) => {
  const proofId = /^\/payment-screenshots\/([^?]+)/.exec(url)?.[1] ?? ''
  return callRoute(screenshotLoader, makeRequest(url, { headers }), { id: proofId })
}

const fetchMedia = (key: string) => callRoute(mediaLoader, makeRequest(`/media/${key}`), { '*': key })

async function deleteAsAdmin(userId: string) {
  const { token } = await createTestUser({ role: 'superadmin' })
  const response = await callRoute(
    deleteAction,
    makeRequest(`/api/userManagement/users/${userId}`, { method: 'DELETE', token }),
    { id: userId },
  )
  expect(response.status).toBe(200)
}

test('the owner gets a signed URL that an <img> can load, privately cached; /media no longer serves the key', async () => {
  const { token } = await createTestUser()
  const proof = await proofWithScreenshot(token)
  expect(proof.screenshotUrl).toMatch(new RegExp(`^/payment-screenshots/${proof.id}\\?expires=\\d+&signature=`))

  const response = await fetchScreenshot(proof.screenshotUrl)
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toBe('image/jpeg')
  const cacheControl = response.headers.get('cache-control') ?? ''
  expect(cacheControl).toMatch(/^private, max-age=\d+$/)
  expect(cacheControl).not.toMatch(/public|immutable/)
  // Minutes, not a year: the URL expires between 10 and 15 minutes from now.
  const maxAge = Number(/max-age=(\d+)/.exec(cacheControl)?.[1])
  expect(maxAge).toBeGreaterThan(9 * 60)
  expect(maxAge).toBeLessThanOrEqual(15 * 60)
  expect((await sharp(Buffer.from(await response.arrayBuffer())).metadata()).format).toBe('jpeg')

  const key = await keyOf(proof.id)
  expect((await fetchMedia(key)).status).toBe(404)
})

test('only the owner and super administrators are given a URL, and it is a signed one: other users are refused the proofs', async () => {
  const { user: owner, token } = await createTestUser()
  const proof = await proofWithScreenshot(token, '#884422')
  expect(proof.screenshotUrl).toMatch(/^\/payment-screenshots\//)
  const { token: stranger } = await createTestUser()
  const { token: admin } = await createTestUser({ role: 'admin' })
  const { token: superadmin } = await createTestUser({ role: 'superadmin' })

  for (const other of [stranger, admin]) {
    const pending = await callRoute(pendingLoader, makeRequest('/api/image/pending-payment-proofs', { token: other }))
    expect(pending.status).toBe(403)
    expect(await pending.text()).not.toContain('payment-screenshots')
    const reviewed = await callRoute(
      reviewAction,
      makeRequest(`/api/image/review-payment-proof/${proof.id}`, {
        method: 'POST',
        token: other,
        json: { approved: false, reason: 'x' },
      }),
      { id: proof.id },
    )
    expect(reviewed.status).toBe(403)
    expect(await reviewed.text()).not.toContain('payment-screenshots')
  }

  const pending = await callRoute(
    pendingLoader,
    makeRequest('/api/image/pending-payment-proofs', { token: superadmin }),
  )
  expect(pending.status).toBe(200)
  const listed = ((await pending.json()) as { id: string; userId: { _id: string }; screenshotUrl: string }[]).find(
    (item) => item.id === proof.id,
  )
  expect(listed?.userId._id).toBe(owner.id)
  expect((await fetchScreenshot(listed!.screenshotUrl)).status).toBe(200)
})

test('a tampered, borrowed or expired signature is refused', async () => {
  const { token } = await createTestUser()
  const proof = await proofWithScreenshot(token, '#2255aa')
  const other = await proofWithScreenshot(token, '#22aa55')
  const url = new URL(proof.screenshotUrl, 'http://localhost')
  const signature = url.searchParams.get('signature')!
  const expires = Number(url.searchParams.get('expires'))

  const tampered = [
    `/payment-screenshots/${proof.id}?expires=${expires}&signature=${signature.slice(0, -2)}AA`,
    `/payment-screenshots/${proof.id}?expires=${expires + 3600}&signature=${signature}`,
    `/payment-screenshots/${proof.id}?expires=${expires}`,
    `/payment-screenshots/${other.id}?expires=${expires}&signature=${signature}`,
    `/payment-screenshots/not-a-proof?expires=${expires}&signature=${signature}`,
  ]
  for (const bad of tampered) {
    const response = await fetchScreenshot(bad)
    expect([bad, response.status]).toEqual([bad, 403])
    expect(response.headers.get('cache-control')).not.toMatch(/public/)
  }

  // A URL signed 16 minutes ago (the longest life is 15 minutes) has expired; one signed 4 minutes ago has not.
  expect((await fetchScreenshot(signedScreenshotUrl(proof.id, Date.now() - 16 * 60_000))).status).toBe(403)
  expect((await fetchScreenshot(signedScreenshotUrl(proof.id, Date.now() - 4 * 60_000))).status).toBe(200)
})

test('deleting the account deletes its screenshots from disk; the proofs stay, anonymised; an issued URL answers 404', async () => {
  const { user, token } = await createTestUser()
  const pending = await proofWithScreenshot(token, '#aa0000')
  const { token: reviewer } = await createTestUser({ role: 'superadmin' })
  const approved = await proofWithScreenshot(token, '#00aa00')
  const review = await callRoute(
    reviewAction,
    makeRequest(`/api/image/review-payment-proof/${approved.id}`, {
      method: 'POST',
      token: reviewer,
      json: { approved: true },
    }),
    { id: approved.id },
  )
  expect(review.status).toBe(200)
  // Someone else sent the very same picture: its content-hashed key is shared, so it stays.
  const { token: otherToken } = await createTestUser()
  const sharedByOther = await proofWithScreenshot(otherToken, '#00aa00')
  const files = await Promise.all([pending.id, approved.id].map(keyOf))
  const file = (key: string) => path.join(media.dir, 'media', key)
  expect(files.every((key) => fs.existsSync(file(key)))).toBe(true)
  const issuedUrl = (
    (await callRoute(pendingLoader, makeRequest('/api/image/pending-payment-proofs', { token: reviewer })).then(
      (response) => response.json(),
    )) as { id: string; screenshotUrl: string }[]
  ).find((item) => item.id === pending.id)!.screenshotUrl

  await deleteAsAdmin(user.id)

  expect(fs.existsSync(file(files[0]))).toBe(false)
  expect(fs.existsSync(file(files[1]))).toBe(true) // still the other user's screenshot
  expect((await fetchScreenshot(issuedUrl)).status).toBe(404)
  expect((await fetchScreenshot(pending.screenshotUrl)).status).toBe(404)
  expect((await fetchScreenshot(sharedByOther.screenshotUrl)).status).toBe(200)

  const rows = await db
    .selectFrom('payment_proofs')
    .select(['id', 'user_id', 'note', 'screenshot_key', 'status', 'review_reason', 'credit_amount', 'transaction_id'])
    .where('id', 'in', [pending.id, approved.id])
    .orderBy('created_at')
    .execute()
  expect(rows).toEqual([
    expect.objectContaining({
      id: pending.id,
      user_id: null,
      note: '',
      screenshot_key: null,
      status: 'rejected',
      credit_amount: 100,
    }),
    expect.objectContaining({
      id: approved.id,
      user_id: null,
      note: '',
      screenshot_key: null,
      status: 'approved',
      credit_amount: 100,
    }),
  ])
  expect(rows[0].review_reason).toMatch(/account was deleted/)
  expect(rows.every((row) => /^[0-9A-F]{64}$/.test(row.transaction_id))).toBe(true)
  // A deleted account's pending proof is no longer waiting for review.
  const list = await callRoute(pendingLoader, makeRequest('/api/image/pending-payment-proofs', { token: reviewer }))
  expect(((await list.json()) as { id: string }[]).some((item) => item.id === pending.id)).toBe(false)
})

test('a review holding the proof while the account is deleted finishes, and so does the deletion (no deadlock)', async () => {
  const { user, token } = await createTestUser()
  const proof = await proofWithScreenshot(token, '#0000aa')
  // A review's own order of locks (reviewPaymentProof): the proof's row, then its owner's balance.
  const review = await getPool().connect()
  try {
    await review.query('BEGIN')
    await review.query(`UPDATE payment_proofs SET status = 'approved', reviewed_at = now() WHERE id = $1`, [proof.id])
    const deletion = deleteAsAdmin(user.id)
    await new Promise((resolve) => setTimeout(resolve, 300))
    await review.query('UPDATE users SET credits = credits + 100 WHERE id = $1', [user.id])
    await review.query('COMMIT')
    await deletion
  } finally {
    review.release()
  }
  expect(await db.selectFrom('users').select('id').where('id', '=', user.id).executeTakeFirst()).toBeUndefined()
  const kept = await db.selectFrom('payment_proofs').selectAll().where('id', '=', proof.id).executeTakeFirstOrThrow()
  expect(kept).toMatchObject({ user_id: null, status: 'approved', screenshot_key: null })
})

test('with S3 storage, a deletion made through another web process deletes the screenshot from the bucket', async () => {
  const s3 = await startFakeS3()
  const web = await startWebProcess(s3StorageEnv(s3))
  try {
    const { user, token } = await createTestUser()
    const { token: superadmin } = await createTestUser({ role: 'superadmin' })
    const form = new FormData()
    form.append('creditAmount', '100')
    form.append('transactionId', transactionId())
    form.append('screenshot', await screenshotFile('#123456'))
    const submitted = await fetch(`${web.origin}/api/image/submit-payment-proof`, {
      method: 'POST',
      headers: { 'x-auth-token': token },
      body: form,
    })
    expect(submitted.status).toBe(201)
    const { proof } = (await submitted.json()) as { proof: { id: string } }
    const key = await keyOf(proof.id)
    expect([...(s3.buckets.get('media')?.keys() ?? [])]).toContain(key)

    const deleted = await fetch(`${web.origin}/api/userManagement/users/${user.id}`, {
      method: 'DELETE',
      headers: { 'x-auth-token': superadmin },
    })
    expect(deleted.status).toBe(200)
    expect([...(s3.buckets.get('media')?.keys() ?? [])]).not.toContain(key)
    const row = await db.selectFrom('payment_proofs').selectAll().where('id', '=', proof.id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ user_id: null, screenshot_key: null, status: 'rejected' })
  } finally {
    await web.stop()
    await s3.close()
  }
})
