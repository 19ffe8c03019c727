import fs from 'node:fs'
import path from 'node:path'
import { unzipSync } from 'fflate'
import { sql } from 'kysely'
import { completeTask } from '#domain/generation/task-states.server.ts'
import { createSession } from '#domain/sessions/session.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage, mediaKey } from '#platform/storage.server.ts'
import { signedScreenshotUrl } from '#domain/payments/payment-screenshots.server.ts'
import { action as exportAction, loader as exportStatus } from '#app/routes/api.auth.export.ts'
import { action as accountAction } from '#app/routes/api.auth.account.ts'
import { action as photoAction } from '#app/routes/api.async-image.task.$id.photo.ts'
import { action as rerollAction } from '#app/routes/api.async-image.task.$id.reroll.ts'
import { loader as exportDownload } from '#app/routes/exports.$id.ts'
import { loader as mediaLoader } from '#app/routes/media.$.ts'
import { loader as screenshotLoader } from '#app/routes/payment-screenshots.$id.ts'
import { action as profileAction } from '#app/routes/profile.tsx'
import { action as historyAction, loader as historyLoader } from '#app/routes/history.tsx'
import { buildDataExport } from '#worker/jobs/build-data-export.ts'
import { expireMedia } from '#worker/jobs/expire-media.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { petPhoto, photoFile, submitGeneration, withOwnDataDir } from '#tests/helpers/generation.ts'
import { jobHelpers, queuedJobs } from '#tests/helpers/jobs.ts'

const media = withOwnDataDir()
const db = getDb()

/** Every stored object, as keys. */
function storedKeys() {
  const root = path.join(media.dir, 'media')
  if (!fs.existsSync(root)) return []
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .map((entry) => path.join(root, entry))
    .filter((file) => fs.statSync(file).isFile())
    .map((file) => path.relative(root, file).split(path.sep).join('/'))
}

/** A finished portrait of the user: submitted through the API, its result stored and completed. */
async function finishedPortrait(token: string, colour: string) {
  const submitted = await submitGeneration(token, [photoFile(await petPhoto(colour))])
  expect(submitted.status).toBe(200)
  const taskId = submitted.body.taskId as string
  const key = `tasks/${taskId}/result.png`
  await getStorage().put(key, await petPhoto(colour, 256), 'image/png')
  await db.updateTable('generation_tasks').set({ status: 'processing' }).where('id', '=', taskId).execute()
  expect(await completeTask(db, taskId, [{ index: 0, key, width: 256, height: 341 }])).toBe(true)
  return { taskId, resultKey: key }
}

/** A user with a portrait, an avatar, a saved pet with a photo and a payment proof with its screenshot. */
let made = 0
async function userWithEverything() {
  made += 1
  const { user, token } = await createTestUser({ credits: 20 })
  // Bytes of its own (keys are content hashes): no file is shared with another test's user.
  const shade = `#abcd${String(made).padStart(2, '0')}`
  const portrait = await finishedPortrait(token, '#aa3311')
  const storage = getStorage()
  const avatar = mediaKey(`avatars/${user.id}`, await petPhoto('#123456', 128), 'jpg')
  await storage.put(avatar, await petPhoto('#123456', 128), 'image/jpeg')
  await db.updateTable('users').set({ profile_picture: avatar }).where('id', '=', user.id).execute()
  const pet = await db
    .insertInto('pets')
    .values({ user_id: user.id, name: 'Biscuit', species: 'dog' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const petKey = mediaKey(`pets/${pet.id}`, await petPhoto('#654321', 128), 'jpg')
  await storage.put(petKey, await petPhoto('#654321', 128), 'image/jpeg')
  await db
    .insertInto('pet_photos')
    .values({ pet_id: pet.id, key: petKey, width: 128, height: 171, position: 0 })
    .execute()
  const screenshot = mediaKey('payments', await petPhoto(shade, 128), 'jpg')
  await storage.put(screenshot, await petPhoto(shade, 128), 'image/jpeg')
  const proof = await db
    .insertInto('payment_proofs')
    .values({
      user_id: user.id,
      payment_method: 'paypal_me',
      transaction_id: `TX-${user.id.slice(0, 8)}`,
      credit_amount: 100,
      amount_cents: 999,
      screenshot_key: screenshot,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { user, token, portrait, avatar, petKey, screenshot, proofId: proof.id }
}

const exportRequest = (token: string) =>
  callRoute(exportAction, makeRequest('/api/auth/export', { method: 'POST', token }))

/** Asks for an export and runs the worker's job for it; answers the export as /api/auth/export shows it. */
async function madeExport(token: string) {
  const response = await exportRequest(token)
  expect(response.status).toBe(202)
  const { export: started } = await response.json()
  await buildDataExport({ exportId: started.id }, jobHelpers(1))
  const { export: ready } = await (await callRoute(exportStatus, makeRequest('/api/auth/export', { token }))).json()
  expect(ready).toMatchObject({ id: started.id, status: 'ready' })
  return ready as { id: string; url: string; expiresAt: string }
}

const download = (url: string) => {
  const [pathname] = url.split('?')
  return callRoute(exportDownload, makeRequest(url), { id: pathname.split('/').pop() ?? '' })
}

test('the export zip holds every file the user has, the profile, the ledger and the tasks', async () => {
  const owner = await userWithEverything()
  const other = await createTestUser({ credits: 10 })
  const othersPortrait = await finishedPortrait(other.token, '#33aa11')

  const ready = await madeExport(owner.token)
  expect(Date.parse(ready.expiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000)
  const response = await download(ready.url)
  expect(response.status).toBe(200)
  expect(response.headers.get('cache-control')).toMatch(/^private/)
  expect(response.headers.get('content-type')).toBe('application/zip')
  const zip = unzipSync(new Uint8Array(await response.arrayBuffer()))

  // Every stored file but the other user's and the export itself, byte for byte.
  const expected = storedKeys().filter(
    (key) => !key.startsWith(`tasks/${othersPortrait.taskId}/`) && !key.startsWith('exports/'),
  )
  const files = Object.keys(zip).filter((name) => name.startsWith('files/'))
  expect(files.map((name) => name.slice('files/'.length)).sort()).toEqual(expected.sort())
  expect(expected).toEqual(
    expect.arrayContaining([owner.avatar, owner.petKey, owner.screenshot, owner.portrait.resultKey]),
  )
  for (const key of expected) {
    expect(Buffer.from(zip[`files/${key}`]).equals(fs.readFileSync(path.join(media.dir, 'media', key)))).toBe(true)
  }

  const text = (name: string) => new TextDecoder().decode(zip[name])
  const profile = JSON.parse(text('profile.json'))
  expect(profile).toMatchObject({
    id: owner.user.id,
    email: owner.user.email,
    hasPassword: true,
    avatar: `files/${owner.avatar}`,
  })
  expect(text('profile.json')).not.toMatch(/password_hash|argon2/)

  const ledger = await db.selectFrom('credit_transactions').selectAll().where('user_id', '=', owner.user.id).execute()
  const csv = text('credit-ledger.csv').trimEnd().split('\r\n')
  expect(csv[0]).toBe(
    '"id","created_at","type","amount","description","task_id","payment_proof_id","version_index","print_order_id"',
  )
  expect(csv).toHaveLength(ledger.length + 1)
  expect(csv.join('\n')).toContain(`"spend","-`)

  const tasks = JSON.parse(text('tasks.json'))
  expect(tasks).toHaveLength(1)
  expect(tasks[0]).toMatchObject({
    id: owner.portrait.taskId,
    status: 'completed',
    result: `files/${owner.portrait.resultKey}`,
    versions: [{ index: 0, width: 256, height: 341, file: `files/${owner.portrait.resultKey}` }],
  })
  expect(tasks[0].photos).toHaveLength(1)
  expect(JSON.parse(text('pets.json'))[0]).toMatchObject({ name: 'Biscuit', photos: [`files/${owner.petKey}`] })
  expect(JSON.parse(text('payment-proofs.json'))[0]).toMatchObject({
    id: owner.proofId,
    screenshot: `files/${owner.screenshot}`,
  })

  // The link is emailed (through the send_email job) to the user.
  const emails = await queuedJobs<{ to: string; text: string }>('send_email')
  expect(emails.find((mail) => mail.to === owner.user.email)?.text).toContain(ready.url)
})

test('the export link is private, refuses a wrong signature, and expires with its file', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  await finishedPortrait(token, '#1144aa')
  const ready = await madeExport(token)
  const [pathname] = ready.url.split('?')
  expect((await download(`${pathname}?signature=forged`)).status).toBe(403)
  expect((await download(pathname)).status).toBe(403)
  const row = await db.selectFrom('data_exports').select('key').where('id', '=', ready.id).executeTakeFirstOrThrow()
  // /media never serves an export, whatever the key.
  expect((await callRoute(mediaLoader, makeRequest(`/media/${row.key}`), { '*': row.key! })).status).toBe(404)

  await db
    .updateTable('data_exports')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('id', '=', ready.id)
    .execute()
  expect((await download(ready.url)).status).toBe(404)
  await expireMedia({}, jobHelpers(1))
  expect(fs.existsSync(path.join(media.dir, 'media', row.key!))).toBe(false)
  expect(await db.selectFrom('data_exports').where('user_id', '=', user.id).select('id').execute()).toEqual([])
})

test('one export at a time, and a few a day', async () => {
  const { token } = await createTestUser({ credits: 10 })
  const first = await exportRequest(token)
  expect(first.status).toBe(202)
  const again = await exportRequest(token)
  expect(again.status).toBe(429)
  await buildDataExport({ exportId: (await first.json()).export.id }, jobHelpers(1))
  await madeExport(token)
  await madeExport(token)
  const fourth = await exportRequest(token)
  expect(fourth.status).toBe(429)
  expect((await fourth.json()).message).toMatch(/3 times a day/)
})

const deleteRequest = (token: string, json: unknown) =>
  callRoute(accountAction, makeRequest('/api/auth/account', { method: 'DELETE', token, json }))

/** Rows of any table in the public schema that mention the text (the user's id or email). */
async function rowsNaming(text: string) {
  const { rows: tables } = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
  `.execute(db)
  const found: string[] = []
  for (const { table_name } of tables) {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(table_name)} t WHERE position(lower(${text}) in lower(t::text)) > 0
    `.execute(db)
    if (rows[0].n > 0) found.push(`${table_name}: ${rows[0].n}`)
  }
  return found
}

test('a wrong password or a missing confirmation deletes nothing', async () => {
  const owner = await userWithEverything()
  expect((await deleteRequest(owner.token, { password: 'wrong-password', confirmation: 'DELETE' })).status).toBe(403)
  expect((await deleteRequest(owner.token, { password: 'password123' })).status).toBe(400)
  expect((await deleteRequest(owner.token, { password: 'password123', confirmation: 'delete it' })).status).toBe(400)
  expect((await deleteRequest(owner.token, { confirmation: 'DELETE' })).status).toBe(400)
  expect(await db.selectFrom('users').select('id').where('id', '=', owner.user.id).executeTakeFirst()).toBeDefined()
  for (const key of [owner.avatar, owner.petKey, owner.screenshot, owner.portrait.resultKey]) {
    expect(fs.existsSync(path.join(media.dir, 'media', key))).toBe(true)
  }
})

test('after deleting the account every media URL answers 404 and no row names the user', async () => {
  const owner = await userWithEverything()
  const ready = await madeExport(owner.token)
  const keys = storedKeys().filter(
    (key) => key.includes(owner.portrait.taskId) || [owner.avatar, owner.petKey].includes(key),
  )
  expect(keys.length).toBeGreaterThanOrEqual(4)
  const screenshotUrl = signedScreenshotUrl(owner.proofId)

  const response = await deleteRequest(owner.token, { password: 'password123', confirmation: 'DELETE' })
  expect(response.status).toBe(200)
  expect(response.headers.get('set-cookie')).toMatch(/pawtrait_session=;.*Max-Age=0/i)

  for (const key of keys) {
    expect((await callRoute(mediaLoader, makeRequest(`/media/${key}`), { '*': key })).status).toBe(404)
  }
  expect((await callRoute(screenshotLoader, makeRequest(screenshotUrl), { id: owner.proofId })).status).toBe(404)
  expect(fs.existsSync(path.join(media.dir, 'media', owner.screenshot))).toBe(false)
  expect((await download(ready.url)).status).toBe(404)
  expect(storedKeys().filter((key) => key.startsWith(`exports/${ready.id}/`))).toEqual([])
  expect(await rowsNaming(owner.user.id)).toEqual([])
  expect(await rowsNaming(owner.user.email)).toEqual([])
  // The proof stays for accounting, anonymised.
  expect(
    await db.selectFrom('payment_proofs').select('user_id').where('id', '=', owner.proofId).executeTakeFirst(),
  ).toEqual({ user_id: null })
  // The old session no longer signs anyone in.
  expect((await exportRequest(owner.token)).status).toBe(401)
})

test('the profile form deletes the account and lands on / signed out; a Google-only account needs a fresh Google sign-in', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  const form = new URLSearchParams({ intent: 'delete-account', password: 'password123', confirmation: 'DELETE' })
  const response = await callRoute(profileAction, makeRequest('/profile', { method: 'POST', token, body: form }))
  expect(response.status).toBe(302)
  expect(response.headers.get('location')).toBe('/?deleted=account')
  expect(response.headers.get('set-cookie')).toMatch(/Max-Age=0/i)
  expect(await db.selectFrom('users').select('id').where('id', '=', user.id).executeTakeFirst()).toBeUndefined()

  const google = await createTestUser({ credits: 10 })
  await db
    .updateTable('users')
    .set({ password_hash: null, google_id: `g-${google.user.id}` })
    .where('id', '=', google.user.id)
    .execute()
  // A session that began with a password (or long ago) is not enough.
  expect((await deleteRequest(google.token, { confirmation: 'DELETE' })).status).toBe(403)
  const stale = await createSession(db, google.user.id, 'google')
  await sql`UPDATE sessions SET created_at = now() - interval '11 minutes' WHERE user_id = ${google.user.id} AND signed_in_with = 'google'`.execute(
    db,
  )
  expect((await deleteRequest(stale.token, { confirmation: 'DELETE' })).status).toBe(403)
  const fresh = await createSession(db, google.user.id, 'google')
  expect((await deleteRequest(fresh.token, { confirmation: 'DELETE' })).status).toBe(200)
  expect(await db.selectFrom('users').select('id').where('id', '=', google.user.id).executeTakeFirst()).toBeUndefined()
})

test('"Delete my photo now" removes the upload at once and keeps the result; a re-roll then answers photo gone', async () => {
  const { user, token } = await createTestUser({ credits: 20 })
  const { taskId, resultKey } = await finishedPortrait(token, '#aa6622')
  const [photo] = (
    await db.selectFrom('generation_tasks').select('input_keys').where('id', '=', taskId).executeTakeFirstOrThrow()
  ).input_keys
  expect(fs.existsSync(path.join(media.dir, 'media', photo))).toBe(true)
  const stranger = await createTestUser()
  const refused = await callRoute(
    photoAction,
    makeRequest(`/api/async-image/task/${taskId}/photo`, { method: 'DELETE', token: stranger.token }),
    { id: taskId },
  )
  expect(refused.status).toBe(404)
  expect(fs.existsSync(path.join(media.dir, 'media', photo))).toBe(true)

  const response = await callRoute(
    photoAction,
    makeRequest(`/api/async-image/task/${taskId}/photo`, { method: 'DELETE', token }),
    { id: taskId },
  )
  expect(response.status).toBe(200)
  expect(fs.existsSync(path.join(media.dir, 'media', photo))).toBe(false)
  expect(fs.existsSync(path.join(media.dir, 'media', resultKey))).toBe(true)
  const task = await db
    .selectFrom('generation_tasks')
    .select(['input_keys', 'status', 'result_key'])
    .where('id', '=', taskId)
    .executeTakeFirstOrThrow()
  expect(task).toEqual({ input_keys: [], status: 'completed', result_key: resultKey })
  const reroll = await callRoute(
    rerollAction,
    makeRequest(`/api/async-image/task/${taskId}/reroll`, { method: 'POST', token }),
    { id: taskId },
  )
  expect(reroll.status).toBe(410)
  expect(await db.selectFrom('users').select('credits').where('id', '=', user.id).executeTakeFirstOrThrow()).toEqual({
    credits: 18,
  })
})

test('/history offers "Delete my photo now" as a plain form while the photo is kept', async () => {
  const { token } = await createTestUser({ credits: 20 })
  const { taskId, resultKey } = await finishedPortrait(token, '#2266aa')
  const before = await (await callRoute(historyLoader, makeRequest('/history?type=image', { token }))).json()
  expect(before.withPhoto).toEqual([taskId])

  const form = new URLSearchParams({ intent: 'delete-photo', id: taskId })
  const answer = await callRoute(
    historyAction,
    makeRequest('/history?type=image&page=1', { method: 'POST', token, body: form }),
  )
  expect(answer.status).toBe(302)
  expect(answer.headers.get('location')).toBe('/history?type=image&page=1')
  const after = await (await callRoute(historyLoader, makeRequest('/history?type=image', { token }))).json()
  expect(after.withPhoto).toEqual([])
  expect(after.items[0].url).toBe(`/media/${resultKey}`)
})
