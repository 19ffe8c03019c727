import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import sharp from 'sharp'
import { z } from 'zod'
import type { DB, Tx } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { publicOrigin } from '#platform/public-url.server.ts'
import { getMediaBytes, getStorage } from '#platform/storage.server.ts'
import { HttpError, badRequest, notFound } from '#domain/http-error.server.ts'
import { rememberSignInAddress } from '#domain/accounts/sign-in-addresses.server.ts'
import { requireOwnTask } from '#domain/generation/own-task.server.ts'
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

/**
 * Shares version `index` of the user's finished image task: 404 for a task that is not theirs, 409
 * for one not completed (or whose media has expired), 400 for a version it does not have. The
 * sharer's client is remembered like a sign-in's, so a visitor registering from it is no referral.
 */
export async function createSharePage(db: DB, userId: string, taskId: string, input: ShareInput, ip: string) {
  const task = await requireOwnTask(db, userId, taskId)
  if (task.status !== 'completed') throw new HttpError(409, 'Only a finished image can be shared')
  if (task.expires_at && task.expires_at <= new Date()) throw new HttpError(409, 'This image has expired')
  const version = await findTaskVersion(db, task.id, input.index)
  if (!version) throw badRequest(`This image has no version ${input.index}`)
  const original = await getMediaBytes(getStorage(), version.key)
  if (!original) throw new HttpError(409, 'This image is no longer stored')

  const slug = randomBytes(16).toString('base64url')
  const keyBase = `shares/${randomBytes(16).toString('hex')}`
  const [page, card] = await Promise.all([pageImage(original), socialCard(original)])
  const imageKey = `${keyBase}-page.webp`
  const cardKey = `${keyBase}-card.jpg`
  await getStorage().put(imageKey, page, 'image/webp')
  await getStorage().put(cardKey, card, 'image/jpeg')
  await db
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
    .execute()
  await rememberSignInAddress(db, userId, ip)
  return { slug, url: sharePageUrl(slug) }
}

function pageImage(original: Buffer) {
  return sharp(original).resize({ width: PAGE_IMAGE_WIDTH, withoutEnlargement: true }).webp({ quality: 80 }).toBuffer()
}

/** The portrait, whole, on a blurred copy of itself that fills 1200×630. */
async function socialCard(original: Buffer) {
  const backdrop = await sharp(original).resize(CARD_WIDTH, CARD_HEIGHT, { fit: 'cover' }).blur(40).toBuffer()
  const portrait = await sharp(original)
    .resize(CARD_WIDTH - 80, CARD_HEIGHT - 60, { fit: 'inside' })
    .toBuffer()
  return sharp(backdrop)
    .composite([{ input: portrait, gravity: 'center' }])
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
