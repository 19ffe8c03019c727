import { sql } from 'kysely'
import { z } from 'zod'
import type { InspirationImage } from '#app/utils/db-schema.ts'
import type { DB } from '#app/utils/db.server.ts'
import { badRequest, notFound } from '#app/utils/http.server.ts'
import { makeThumbnail, normalizeUploadedImage } from '#app/utils/images.server.ts'
import { mediaUrl } from '#app/utils/media-url.ts'
import { type MediaStorage, mediaKey } from '#app/utils/storage.server.ts'
import {
  DISPLAY_WIDTH,
  type InspirationImageJson,
  OTHER_PARAM_KEYS,
  type OtherParamKey,
  type OtherParams,
  type TemplateUpload,
  THUMBNAIL_WIDTH,
} from './gallery-shared.ts'
import { requireGalleryStyle } from './styles.server.ts'

const KEY_PREFIX = 'inspiration'

export function toInspirationJson(row: InspirationImage): InspirationImageJson {
  const stored = row.other_params
  const otherParams = Object.fromEntries(OTHER_PARAM_KEYS.map((key) => [key, stored[key] ?? ''])) as OtherParams
  otherParams.templatePrompt = row.template_prompt
  return {
    _id: row.id,
    imageUrl: mediaUrl(row.display_key),
    originalImageUrl: mediaUrl(row.image_key),
    thumbnailUrl: mediaUrl(row.thumbnail_key),
    width: row.width,
    height: row.height,
    name: row.name,
    parameters: { style: row.style, prompt: row.prompt, otherParams },
    createdAt: row.created_at.toISOString(),
  }
}

/** Every inspiration image, newest first. */
export async function listInspirationImages(db: DB): Promise<InspirationImageJson[]> {
  const rows = await db
    .selectFrom('inspiration_images')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute()
  return rows.map(toInspirationJson)
}

export interface NewInspirationImage {
  /** Untrusted bytes: checked by content, re-encoded without metadata. */
  image: Buffer
  style: string
  name: string
  prompt: string
  templatePrompt: string
  otherParams: Partial<Record<OtherParamKey, string>>
  createdBy: string | null
}

/**
 * Stores a template: the cleaned original plus its 480 and 960 px WebP renditions (made once, here),
 * under content-hashed keys, then its row. The style must be a gallery style.
 */
export async function createInspirationImage(
  db: DB,
  storage: MediaStorage,
  input: NewInspirationImage,
): Promise<InspirationImageJson> {
  const style = await requireGalleryStyle(db, input.style)
  const original = await normalizeUploadedImage(input.image)
  const [thumbnail, display] = await Promise.all([
    makeThumbnail(original.bytes, THUMBNAIL_WIDTH),
    makeThumbnail(original.bytes, DISPLAY_WIDTH),
  ])
  const [imageKey, thumbnailKey, displayKey] = await Promise.all(
    [original, thumbnail, display].map(async (encoded) => {
      const key = mediaKey(KEY_PREFIX, encoded.bytes, encoded.ext)
      await storage.put(key, encoded.bytes, encoded.mimeType)
      return key
    }),
  )
  const otherParams = Object.fromEntries(OTHER_PARAM_KEYS.map((key) => [key, input.otherParams[key] ?? '']))
  const row = await db
    .insertInto('inspiration_images')
    .values({
      name: input.name || style.label,
      style: style.value,
      prompt: input.prompt,
      template_prompt: input.templatePrompt,
      other_params: JSON.stringify(otherParams),
      image_key: imageKey,
      thumbnail_key: thumbnailKey,
      display_key: displayKey,
      width: original.width,
      height: original.height,
      created_by: input.createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return toInspirationJson(row)
}

/** An Update Case upload (API or page), validated by templateUploadSchema, stored for `adminId`. */
export async function createTemplateFromUpload(
  db: DB,
  storage: MediaStorage,
  upload: TemplateUpload,
  adminId: string,
): Promise<InspirationImageJson> {
  return createInspirationImage(db, storage, {
    image: Buffer.from(await upload.image.arrayBuffer()),
    style: upload.style,
    name: upload.name,
    prompt: upload.prompt,
    templatePrompt: upload.templatePrompt,
    otherParams: Object.fromEntries(OTHER_PARAM_KEYS.map((key) => [key, upload[key]])),
    createdBy: adminId,
  })
}

const imageId = z.string().uuid()

/**
 * Deletes an inspiration image and its stored files. Keys are content-hashed, so the same upload
 * twice shares files: only files no remaining row points at are removed.
 */
export async function deleteInspirationImage(db: DB, storage: MediaStorage, id: string): Promise<void> {
  if (!imageId.safeParse(id).success) throw badRequest('Invalid image id')
  const unusedKeys = await db.transaction().execute(async (tx) => {
    const row = await tx.deleteFrom('inspiration_images').where('id', '=', id).returningAll().executeTakeFirst()
    if (!row) throw notFound('Image not found')
    const keys = [row.image_key, row.thumbnail_key, row.display_key]
    const stillUsed = await tx
      .selectFrom('inspiration_images')
      .select(sql<string>`unnest(array[image_key, thumbnail_key, display_key])`.as('key'))
      .where((eb) =>
        eb.or([eb('image_key', 'in', keys), eb('thumbnail_key', 'in', keys), eb('display_key', 'in', keys)]),
      )
      .execute()
    const used = new Set(stillUsed.map(({ key }) => key))
    return keys.filter((key) => !used.has(key))
  })
  await storage.deleteMany(unusedKeys)
}
