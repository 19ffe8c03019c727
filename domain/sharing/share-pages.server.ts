import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import sharp, { type Sharp } from 'sharp'
import { z } from 'zod'
import type { DB, Tx } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { publicOrigin } from '#platform/public-url.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { HttpError, badRequest, notFound } from '#domain/http-error.server.ts'
import { requireOwnTask } from '#domain/generation/own-task.server.ts'
import { MAX_UPSCALED_SIDE } from '#domain/generation/upscale-params.ts'
import { assertWithinRateLimits, consumeRateLimits } from '#domain/limits/rate-limit.server.ts'
import { sharePageLimit } from '#domain/limits/share-limits.server.ts'
import { decodeTurn } from '#domain/media/images.server.ts'
import { favouriteSchema, findTaskVersion } from '#domain/generation/task-versions.server.ts'

/**
 * Share pages (issue 32, item 4; decision 0037): one finished version of a user's portrait on a
 * public page /p/{slug}. The slug is 16 random bytes (128 bits), never the task id. The page
 * serves its own copies of the image (the page's picture and the 1200×630 social card) under
 * /p/{slug}/…, never the /media key, whose answers are cached for a year: deleting the row makes
 * the page and both images 404 at once. A page lives as long as its task's media (expires_at).
 */

/** The card social networks show: og:image's size. */
export const CARD_WIDTH = 1200
export const CARD_HEIGHT = 630
/** The page's picture: wide enough for a phone at 2× and a desktop column, small enough to load fast. */
const PAGE_IMAGE_WIDTH = 768

/** The page's own copies live under this prefix; /media never serves them (their caching outlives an unshare). */
export const isSharePageKey = (key: string) => key.startsWith('shares/')

const slugPattern = /^[A-Za-z0-9_-]{22}$/

const listedSchema = z.preprocess(
  (value) => value === true || value === 'true' || value === 'on' || value === '1',
  z.boolean(),
)

/** POST /api/async-image/task/{id}/share's body (and the plain form's fields). */
export const shareSchema = favouriteSchema.extend({ listed: listedSchema.optional().default(false) })
export type ShareInput = z.infer<typeof shareSchema>

export const sharePagePath = (slug: string) => `/p/${slug}`
const sharePageUrl = (slug: string) => `${publicOrigin(getEnv())}${sharePagePath(slug)}`

const uuid = z.string().uuid()

/** The largest version there is (an upscale, decision 0036): a share image never decodes more pixels. */
const MAX_SHARED_PIXELS = MAX_UPSCALED_SIDE * MAX_UPSCALED_SIDE

/**
 * Shares version `index` of the user's finished image task: 404 for a task that is not theirs, 409
 * for one not completed (or whose media has expired), 400 for a version it does not have. A version
 * has one live page: sharing it again answers that page (`created: false`, its `listed` as asked
 * now), so a burst of shares makes one page; unsharing and sharing again makes a new one. Making a
 * page counts against the user's sharePageLimit (429 past it) and decodes the version from its
 * stored stream in the process's decode turn, shared with uploads (issue 38).
 */
export async function createSharePage(db: DB, userId: string, taskId: string, input: ShareInput) {
  const task = await requireOwnTask(db, userId, taskId)
  if (task.status !== 'completed') throw new HttpError(409, 'Only a finished image can be shared')
  if (task.expires_at && task.expires_at <= new Date()) throw new HttpError(409, 'This image has expired')
  const version = await findTaskVersion(db, task.id, input.index)
  if (!version) throw badRequest(`This image has no version ${input.index}`)
  const existing = await answerLivePage(db, task.id, input)
  if (existing) return existing
  await assertWithinRateLimits(db, [sharePageLimit(userId)])
  return decodeTurn(async () => {
    // A share that waited its turn finds the page the one before it made.
    const madeMeanwhile = await answerLivePage(db, task.id, input)
    if (madeMeanwhile) return madeMeanwhile
    await consumeRateLimits(db, [sharePageLimit(userId)])
    const keyBase = `shares/${randomBytes(16).toString('hex')}`
    const imageKey = `${keyBase}-page.webp`
    const cardKey = `${keyBase}-card.jpg`
    const { page, card } = await shareImages(version.key)
    await getStorage().put(imageKey, page, 'image/webp')
    await getStorage().put(cardKey, card, 'image/jpeg')
    const slug = randomBytes(16).toString('base64url')
    // Keyed by the version (share_pages_one_per_version): another web process may have made its page.
    const inserted = await db
      .insertInto('share_pages')
      .values({
        slug,
        user_id: userId,
        task_id: task.id,
        version_index: input.index,
        listed: input.listed,
        image_key: imageKey,
        card_key: cardKey,
      })
      .onConflict((conflict) =>
        conflict
          .columns(['task_id', 'version_index'])
          .where(sql<boolean>`NOT duplicate`)
          .doNothing(),
      )
      .returning('slug')
      .executeTakeFirst()
    if (inserted) return { slug, url: sharePageUrl(slug), created: true }
    await getStorage().deleteMany([imageKey, cardKey])
    const winner = await answerLivePage(db, task.id, input)
    if (!winner) throw new HttpError(409, 'This image was unshared meanwhile: please share it again')
    return winner
  })
}

/** The version's live page, set to `listed` as asked now, or undefined. */
async function answerLivePage(db: DB, taskId: string, { index, listed }: ShareInput) {
  const page = await db
    .selectFrom('share_pages')
    .select(['slug', 'listed'])
    .where('task_id', '=', taskId)
    .where('version_index', '=', index)
    .orderBy('duplicate')
    .orderBy('created_at')
    .executeTakeFirst()
  if (!page) return undefined
  if (page.listed !== listed) {
    await db.updateTable('share_pages').set({ listed }).where('slug', '=', page.slug).execute()
  }
  return { slug: page.slug, url: sharePageUrl(page.slug), created: false }
}

/**
 * The page's picture and the social card, from the stored version read as a stream (never whole
 * into memory) and decoded once, sequentially, at most MAX_SHARED_PIXELS, into a working copy no
 * larger than the card needs; both are made from that copy.
 */
async function shareImages(key: string) {
  const object = await getStorage().get(key)
  if (!object) throw new HttpError(409, 'This image is no longer stored')
  const decoder = sharp({ limitInputPixels: MAX_SHARED_PIXELS, sequentialRead: true, failOn: 'error' })
  object.body.once('error', (error) => decoder.destroy(error))
  object.body.pipe(decoder)
  try {
    const working = await decoder
      .resize({ width: CARD_WIDTH, height: 2 * CARD_WIDTH, fit: 'inside', withoutEnlargement: true })
      .raw()
      .toBuffer({ resolveWithObject: true })
    const copy = () => sharp(working.data, { raw: working.info })
    const [page, card] = await Promise.all([pageImage(copy()), socialCard(copy)])
    return { page, card }
  } catch (error) {
    if (error instanceof Error && /pixel limit/i.test(error.message)) {
      throw new HttpError(422, 'This image is too large to share')
    }
    throw error
  } finally {
    object.body.destroy()
  }
}

function pageImage(working: Sharp) {
  return working.resize({ width: PAGE_IMAGE_WIDTH, withoutEnlargement: true }).webp({ quality: 80 }).toBuffer()
}

/** The portrait, whole, on a blurred copy of itself that fills 1200×630. */
async function socialCard(copy: () => Sharp) {
  const backdrop = await copy()
    .resize(CARD_WIDTH, CARD_HEIGHT, { fit: 'cover' })
    .blur(40)
    .raw()
    .toBuffer({ resolveWithObject: true })
  const portrait = await copy()
    .resize(CARD_WIDTH - 80, CARD_HEIGHT - 60, { fit: 'inside' })
    .raw()
    .toBuffer({ resolveWithObject: true })
  return sharp(backdrop.data, { raw: backdrop.info })
    .composite([{ input: portrait.data, raw: portrait.info, gravity: 'center' }])
    .jpeg({ quality: 82 })
    .toBuffer()
}

/** Unshares the user's page: 404 for a slug that is not theirs. Its images go with it. */
export async function deleteSharePage(db: DB, userId: string, slug: string) {
  const deleted = slugPattern.test(slug)
    ? await db
        .deleteFrom('share_pages')
        .where('slug', '=', slug)
        .where('user_id', '=', userId)
        .returning(['image_key', 'card_key'])
        .executeTakeFirst()
    : undefined
  if (!deleted) throw notFound('Share page not found')
  await getStorage().deleteMany([deleted.image_key, deleted.card_key])
}

/** A live share page as the public sees it (no email, no account name, no other version), or null. */
export async function findSharePage(db: DB, slug: string) {
  if (!slugPattern.test(slug)) return null
  const row = await db
    .selectFrom('share_pages')
    .innerJoin('generation_tasks', 'generation_tasks.id', 'share_pages.task_id')
    .innerJoin('task_versions', (join) =>
      join
        .onRef('task_versions.task_id', '=', 'share_pages.task_id')
        .onRef('task_versions.version_index', '=', 'share_pages.version_index'),
    )
    .select([
      'share_pages.slug',
      'share_pages.user_id',
      'share_pages.listed',
      'share_pages.image_key',
      'share_pages.card_key',
      'generation_tasks.params',
      'generation_tasks.expires_at',
      'task_versions.width',
      'task_versions.height',
    ])
    .where('share_pages.slug', '=', slug)
    .where(sql<boolean>`(generation_tasks.expires_at IS NULL OR generation_tasks.expires_at > now())`)
    .executeTakeFirst()
  if (!row) return null
  return { ...row, made: await whatItWasMadeWith(db, row.params) }
}

export type SharePage = NonNullable<Awaited<ReturnType<typeof findSharePage>>>

/** The template or style the portrait was made with: its name, and the generator link that picks it. */
async function whatItWasMadeWith(db: DB, params: Record<string, unknown>) {
  const templateId = typeof params.templateId === 'string' && uuid.safeParse(params.templateId).success
  if (templateId) {
    const template = await db
      .selectFrom('templates')
      .select(['id', 'name'])
      .where('id', '=', params.templateId as string)
      .executeTakeFirst()
    if (template)
      return { kind: 'template' as const, name: template.name, generateHref: `/generate?template=${template.id}` }
  }
  const value = typeof params.style === 'string' ? params.style : 'general'
  const style = await db.selectFrom('styles').select('label').where('value', '=', value).executeTakeFirst()
  return {
    kind: 'style' as const,
    name: style?.label ?? value,
    generateHref: `/generate?style=${encodeURIComponent(value)}`,
  }
}

/** The user's share pages, newest first, for the share controls. */
export function listUserSharePages(db: DB, userId: string) {
  return db
    .selectFrom('share_pages')
    .select(['slug', 'task_id', 'version_index', 'listed', 'created_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .execute()
}

/** The pages whose owners let search engines list them, for the sitemap. */
export function listListedSharePages(db: DB) {
  return db
    .selectFrom('share_pages')
    .innerJoin('generation_tasks', 'generation_tasks.id', 'share_pages.task_id')
    .select('share_pages.slug')
    .where('share_pages.listed', '=', true)
    .where(sql<boolean>`(generation_tasks.expires_at IS NULL OR generation_tasks.expires_at > now())`)
    .orderBy('share_pages.created_at', 'desc')
    .limit(10_000)
    .execute()
}

/** The stored copies of the user's share pages, for deleting the account (the rows go by cascade). */
export async function userSharePageKeys(tx: Tx, userId: string) {
  const rows = await tx
    .selectFrom('share_pages')
    .select(['image_key', 'card_key'])
    .where('user_id', '=', userId)
    .execute()
  return rows.flatMap((row) => [row.image_key, row.card_key])
}
