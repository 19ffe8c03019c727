import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import sharp from 'sharp'
import { action as shareAction } from '#app/routes/api.async-image.task.$id.share.ts'
import { action as unshareAction } from '#app/routes/api.share.$slug.ts'
import { loader as pageLoader } from '#app/routes/p.$slug.tsx'
import { loader as imageLoader } from '#app/routes/p.$slug.image[.]webp.ts'
import { loader as cardLoader } from '#app/routes/p.$slug.card[.]jpg.ts'
import { loader as mediaLoader } from '#app/routes/media.$.ts'
import { loader as sitemapLoader } from '#app/routes/sitemap[.]xml.ts'
import { action as registerAction } from '#app/routes/register.tsx'
import { loader as generateLoader } from '#app/routes/generate.tsx'
import { register } from '#domain/accounts/account.server.ts'
import { hasSignedInFrom, rememberSignInAddress } from '#domain/accounts/sign-in-addresses.server.ts'
import { reviewPaymentProof } from '#domain/payments/payments.server.ts'
import { saveSystemConfig } from '#domain/credits/system-config.server.ts'
import { deleteAccount } from '#domain/user-management/account-deletion.server.ts'
import { deleteFinishedTask } from '#domain/generation/user-tasks.server.ts'
import { expireTasks } from '#domain/generation/task-states.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { withOwnDataDir } from '#tests/helpers/generation.ts'
import { finishedTaskWithVersion } from '#tests/helpers/finished-task.ts'

const media = withOwnDataDir()
process.env.PUBLIC_URL = 'https://pawtrait.example'
const db = getDb()

/** A completed image task of `userId` with one stored 1024 px version. */
async function finishedTask(userId: string) {
  const bytes = await sharp({ create: { width: 1024, height: 1024, channels: 3, background: '#c08040' } })
    .composite([
      {
        input: Buffer.from(randomBytes(8).toString('hex')),
        raw: { width: 4, height: 1, channels: 4 },
        top: 0,
        left: 0,
      },
    ])
    .png()
    .toBuffer()
  return finishedTaskWithVersion(userId, bytes)
}

/** The share pages' stored copies, by file name. */
const shareCopies = () => {
  const folder = path.join(media.dir, 'media', 'shares')
  return fs.existsSync(folder) ? fs.readdirSync(folder).sort() : []
}

/** A 1-bit black PNG of that size: 100 megapixels in about 12 kB (what a decompression bomb looks like). */
function blackPng(width: number, height: number) {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(zlib.crc32(body))
    return Buffer.concat([length, body, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([1, 0, 0, 0, 0], 8) // bit depth 1, greyscale
  const rows = Buffer.alloc((1 + Math.ceil(width / 8)) * height) // filter 0, all black
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

async function share(token: string, taskId: string, json: unknown) {
  const response = await callRoute(
    shareAction,
    makeRequest(`/api/async-image/task/${taskId}/share`, {
      token,
      json,
      headers: { 'x-pawtrait-client-address': '198.51.100.7' },
    }),
    { id: taskId },
  )
  return { status: response.status, body: (await response.json()) as { url?: string; message?: string } }
}

const slugOf = (url: string) => url.split('/p/')[1]
const page = (slug: string, token?: string) => callRoute(pageLoader, makeRequest(`/p/${slug}`, { token }), { slug })

describe('share pages', () => {
  it('shares a version under a random slug with absolute OG tags, a 1200×630 card and no email', async () => {
    const { user, token } = await createTestUser()
    const { taskId, key } = await finishedTask(user.id)
    const shared = await share(token, taskId, { index: 0 })
    expect(shared.status).toBe(201)
    expect(shared.body.url).toMatch(/^https:\/\/pawtrait\.example\/p\/[A-Za-z0-9_-]{22}$/)
    const slug = slugOf(shared.body.url!)
    expect(slug).not.toContain(taskId)

    const response = await page(slug)
    expect(response.status).toBe(200)
    expect(response.headers.get('set-cookie')).toContain(`pawtrait_ref=${slug}`)
    const data = await response.json()
    expect(JSON.stringify(data)).not.toContain(user.email)
    expect(JSON.stringify(data)).not.toContain(user.name)
    expect(JSON.stringify(data)).not.toContain(key)
    expect(data.cardUrl).toBe(`https://pawtrait.example/p/${slug}/card.jpg`)
    expect(data.listed).toBe(false)

    const card = await callRoute(cardLoader, makeRequest(`/p/${slug}/card.jpg`), { slug })
    expect(card.status).toBe(200)
    expect(card.headers.get('cache-control')).toBe('public, max-age=60')
    const size = await sharp(Buffer.from(await card.arrayBuffer())).metadata()
    expect([size.width, size.height]).toEqual([1200, 630])
    const image = await callRoute(imageLoader, makeRequest(`/p/${slug}/image.webp`), { slug })
    expect(image.status).toBe(200)
  })

  it('is noindex unless listed, and only a listed page is in the sitemap', async () => {
    const { meta } = await import('#app/routes/p.$slug.tsx')
    const { user, token } = await createTestUser()
    const quiet = slugOf((await share(token, (await finishedTask(user.id)).taskId, { index: 0 })).body.url!)
    const listed = slugOf(
      (await share(token, (await finishedTask(user.id)).taskId, { index: 0, listed: true })).body.url!,
    )
    const tags = async (slug: string) =>
      meta({ data: await (await page(slug)).json() } as Parameters<typeof meta>[0]) as Record<string, string>[]
    const quietTags = await tags(quiet)
    expect(quietTags).toContainEqual({ name: 'robots', content: 'noindex' })
    expect(quietTags).toContainEqual({ name: 'twitter:card', content: 'summary_large_image' })
    expect(quietTags).toContainEqual({ property: 'og:image:width', content: '1200' })
    expect(quietTags.find((tag) => tag.property === 'og:image')?.content).toMatch(/^https:\/\/pawtrait\.example\//)
    expect(await tags(listed)).not.toContainEqual({ name: 'robots', content: 'noindex' })
    const sitemap = await (await callRoute(sitemapLoader, makeRequest('/sitemap.xml'))).text()
    expect(sitemap).toContain(`/p/${listed}`)
    expect(sitemap).not.toContain(`/p/${quiet}`)
  })

  it('unshares: the page and its images 404 at once; only the owner can; /media never serves the copies', async () => {
    const { user, token } = await createTestUser()
    const other = await createTestUser()
    const { taskId } = await finishedTask(user.id)
    expect((await share(other.token, taskId, { index: 0 })).status).toBe(404)
    expect((await share(token, taskId, { index: 3 })).status).toBe(400)
    const slug = slugOf((await share(token, taskId, { index: 0 })).body.url!)
    const { image_key } = await db
      .selectFrom('share_pages')
      .select('image_key')
      .where('slug', '=', slug)
      .executeTakeFirstOrThrow()
    expect((await callRoute(mediaLoader, makeRequest(`/media/${image_key}`), { '*': image_key })).status).toBe(404)

    const unshare = (as: string) =>
      callRoute(unshareAction, makeRequest(`/api/share/${slug}`, { method: 'DELETE', token: as }), { slug })
    expect((await unshare(other.token)).status).toBe(404)
    expect((await page(slug)).status).toBe(200)
    const started = Date.now()
    expect((await unshare(token)).status).toBe(200)
    expect((await page(slug)).status).toBe(404)
    expect((await callRoute(imageLoader, makeRequest(`/p/${slug}/image.webp`), { slug })).status).toBe(404)
    expect((await callRoute(cardLoader, makeRequest(`/p/${slug}/card.jpg`), { slug })).status).toBe(404)
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it('sharing a version that has a live page answers that page (200); unshare then share makes a new one', async () => {
    const { user, token } = await createTestUser()
    const { taskId } = await finishedTask(user.id)
    const first = await share(token, taskId, { index: 0 })
    expect(first.status).toBe(201)
    const again = await share(token, taskId, { index: 0, listed: true })
    expect(again).toEqual({ status: 200, body: { url: first.body.url } })
    const rows = await db.selectFrom('share_pages').selectAll().where('task_id', '=', taskId).execute()
    expect(rows).toEqual([expect.objectContaining({ slug: slugOf(first.body.url!), listed: true })])

    const slug = slugOf(first.body.url!)
    await callRoute(unshareAction, makeRequest(`/api/share/${slug}`, { method: 'DELETE', token }), { slug })
    const renewed = await share(token, taskId, { index: 0 })
    expect(renewed.status).toBe(201)
    expect(renewed.body.url).not.toBe(first.body.url)
    expect((await page(slug)).status).toBe(404)
    expect((await page(slugOf(renewed.body.url!))).status).toBe(200)
  })

  it('makes at most 20 pages an hour per user: the 21st answers 429 with Retry-After; a re-share costs nothing', async () => {
    const { user, token } = await createTestUser()
    const tasks = []
    for (let i = 0; i < 21; i++) tasks.push((await finishedTask(user.id)).taskId)
    for (const taskId of tasks.slice(0, 20)) {
      expect((await share(token, taskId, { index: 0 })).status).toBe(201)
      expect((await share(token, taskId, { index: 0 })).status).toBe(200)
    }
    const refused = await callRoute(
      shareAction,
      makeRequest(`/api/async-image/task/${tasks[20]}/share`, { token, json: { index: 0 } }),
      { id: tasks[20] },
    )
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000)
    expect(await refused.json()).toEqual({ message: expect.stringMatching(/^Too many attempts, please try again in/) })
    expect(await db.selectFrom('share_pages').select('slug').where('task_id', '=', tasks[20]).execute()).toEqual([])
    // Another user is not held back.
    const other = await createTestUser()
    expect((await share(other.token, (await finishedTask(other.user.id)).taskId, { index: 0 })).status).toBe(201)
  })

  it('refuses a version over 8192×8192 pixels from its header (422), with nothing stored', async () => {
    const { user, token } = await createTestUser()
    const { taskId, key } = await finishedTask(user.id)
    await getStorage().put(key, blackPng(10_000, 10_000), 'image/png')
    const copiesBefore = shareCopies()
    expect(await share(token, taskId, { index: 0 })).toEqual({
      status: 422,
      body: { message: 'This image is too large to share' },
    })
    expect(await db.selectFrom('share_pages').select('slug').where('task_id', '=', taskId).execute()).toEqual([])
    expect(shareCopies()).toEqual(copiesBefore)
  })

  it("sharing does not make the sharer's address a trusted one (only sign-ins, registrations and resets do)", async () => {
    const { user, token } = await createTestUser()
    const { taskId } = await finishedTask(user.id)
    expect((await share(token, taskId, { index: 0 })).status).toBe(201)
    expect(await hasSignedInFrom(db, user.id, '198.51.100.7')).toBe(false)
    expect(await db.selectFrom('sign_in_addresses').selectAll().where('user_id', '=', user.id).execute()).toEqual([])
  })

  it('deleting or expiring the task deletes its share pages and their copies', async () => {
    const { user, token } = await createTestUser()
    const rowsOf = async (taskId: string) => {
      const slug = slugOf((await share(token, taskId, { index: 0 })).body.url!)
      return db.selectFrom('share_pages').selectAll().where('slug', '=', slug).executeTakeFirstOrThrow()
    }
    const deleted = await finishedTask(user.id)
    const deletedShare = await rowsOf(deleted.taskId)
    await deleteFinishedTask(db, user.id, deleted.taskId, 'image')
    const expired = await finishedTask(user.id)
    const expiredShare = await rowsOf(expired.taskId)
    await db
      .updateTable('generation_tasks')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', expired.taskId)
      .execute()
    await expireTasks(db)
    for (const row of [deletedShare, expiredShare]) {
      expect(await getStorage().stat(row.card_key)).toBeNull()
      expect(await getStorage().stat(row.image_key)).toBeNull()
      expect((await page(row.slug)).status).toBe(404)
    }
  })

  it('deleting the account deletes its share pages and their copies', async () => {
    const { user, token } = await createTestUser()
    const { taskId } = await finishedTask(user.id)
    const slug = slugOf((await share(token, taskId, { index: 0 })).body.url!)
    const row = await db.selectFrom('share_pages').selectAll().where('slug', '=', slug).executeTakeFirstOrThrow()
    await deleteAccount(db, user.id)
    expect(await getStorage().stat(row.card_key)).toBeNull()
    expect(await getStorage().stat(row.image_key)).toBeNull()
    expect((await page(slug)).status).toBe(404)
  })
})

describe('referrals', () => {
  let counter = 0
  async function sharerWithPage(email?: string) {
    const sharer = await createTestUser({ email })
    const { taskId } = await finishedTask(sharer.user.id)
    await rememberSignInAddress(db, sharer.user.id, '2001:db8:aaaa:1::5')
    const slug = slugOf((await share(sharer.token, taskId, { index: 0 })).body.url!)
    return { ...sharer, slug }
  }
  async function visitor(
    slug: string,
    ip = `203.0.113.${++counter}`,
    email = `visitor${counter}-${Date.now()}@example.com`,
  ) {
    const session = await register(db, { name: `Visitor ${counter}`, email, password: 'password123' }, ip, slug)
    return session.user
  }
  async function pendingProofs(userId: string, count: number) {
    return db
      .insertInto('payment_proofs')
      .values(
        Array.from({ length: count }, () => ({
          user_id: userId,
          payment_method: 'usdt_trc20' as const,
          transaction_id: randomBytes(32).toString('hex'),
          credit_amount: 100,
          amount_cents: 100,
        })),
      )
      .returning('id')
      .execute()
  }
  const approve = (proofId: string, reviewerId: string) =>
    reviewPaymentProof(db, { proofId, reviewer: { id: reviewerId }, approved: true })
  const balance = async (userId: string) =>
    (await db.selectFrom('users').select('credits').where('id', '=', userId).executeTakeFirstOrThrow()).credits
  const referralLines = (userId: string) =>
    db
      .selectFrom('credit_transactions')
      .select(['amount', 'description'])
      .where('user_id', '=', userId)
      .where('description', 'like', 'Referral%')
      .execute()

  it('a guest goes from "Make one of my pet" to register (the slug in a cookie) and back to the generator with the style chosen', async () => {
    const sharer = await sharerWithPage()
    const data = await (await page(sharer.slug)).json()
    expect(data.makeHref).toBe(`/register?redirectTo=${encodeURIComponent('/generate?style=general')}`)
    const email = `guest-${Date.now()}@example.com`
    const body = new URLSearchParams({
      intent: 'register',
      name: 'Guest',
      email,
      password: 'password123',
      confirmPassword: 'password123',
      redirectTo: '/generate?style=general',
    })
    const registered = await callRoute(
      registerAction,
      makeRequest('/register', {
        body,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `pawtrait_ref=${sharer.slug}`,
          'x-pawtrait-client-address': '203.0.113.250',
        },
      }),
    )
    expect(registered.status).toBe(302)
    expect(registered.headers.get('location')).toBe('/generate?style=general')
    const row = await db.selectFrom('users').select('referrer_id').where('email', '=', email).executeTakeFirstOrThrow()
    expect(row.referrer_id).toBe(sharer.user.id)
    const generator = await (await callRoute(generateLoader, makeRequest('/generate?style=general'))).json()
    expect(generator.chosenStyle).toBe('general')
  })

  it('pays the sharer exactly once when 10 approvals of the visitor race, with a line for both', async () => {
    const admin = await createTestUser({ role: 'superadmin' })
    const sharer = await sharerWithPage()
    const friend = await visitor(sharer.slug)
    const before = await balance(sharer.user.id)
    const proofs = await pendingProofs(friend.id, 10)
    await Promise.all(proofs.map((proof) => approve(proof.id, admin.user.id)))
    expect(await balance(sharer.user.id)).toBe(before + 20)
    expect(await referralLines(sharer.user.id)).toEqual([expect.objectContaining({ amount: 20 })])
    const friendLines = await referralLines(friend.id)
    expect(friendLines).toHaveLength(1)
    expect(friendLines[0].description).toContain('first purchase')
  })

  it('stops at referralMaxPerMonth per sharer', async () => {
    const admin = await createTestUser({ role: 'superadmin' })
    await saveSystemConfig(db, {
      newUserBonusCredits: 10,
      imageGenerationCreditCost: 2,
      videoGenerationCreditCost: 20,
      fastVideoGenerationCreditCost: 10,
      referralMaxPerMonth: 2,
    })
    try {
      const sharer = await sharerWithPage()
      const before = await balance(sharer.user.id)
      const friends = [await visitor(sharer.slug), await visitor(sharer.slug), await visitor(sharer.slug)]
      for (const friend of friends) {
        const [proof] = await pendingProofs(friend.id, 1)
        await approve(proof.id, admin.user.id)
      }
      expect(await balance(sharer.user.id)).toBe(before + 40)
    } finally {
      await saveSystemConfig(db, {
        newUserBonusCredits: 10,
        imageGenerationCreditCost: 2,
        videoGenerationCreditCost: 20,
        fastVideoGenerationCreditCost: 10,
        referralMaxPerMonth: 10,
      })
    }
  })

  it('refuses self-referral: the same mailbox, or the same IPv6 /64', async () => {
    const admin = await createTestUser({ role: 'superadmin' })
    const stamp = Date.now()
    const sharer = await sharerWithPage(`pet.owner${stamp}@gmail.com`)
    const before = await balance(sharer.user.id)
    const sameMailbox = await visitor(sharer.slug, '192.0.2.200', `PetOwner${stamp}+2@googlemail.com`)
    const sameNetwork = await visitor(sharer.slug, '2001:db8:aaaa:1::9')
    for (const user of [sameMailbox, sameNetwork]) {
      const [proof] = await pendingProofs(user.id, 1)
      await approve(proof.id, admin.user.id)
      const row = await db.selectFrom('users').select('referrer_id').where('id', '=', user.id).executeTakeFirstOrThrow()
      expect(row.referrer_id).toBeNull()
    }
    expect(await balance(sharer.user.id)).toBe(before)
  })
})
