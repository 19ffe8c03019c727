import { sql } from 'kysely'
import { z } from 'zod'
import type { Template } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { badRequest, notFound } from '#domain/http-error.server.ts'
import { makeThumbnail, normalizeUploadedImage } from '#domain/media/images.server.ts'
import { requireModeratedInputs } from '#domain/moderation/moderate-inputs.server.ts'
import { mediaUrl } from '#domain/media/media-url.ts'
import { type MediaStorage, mediaKey } from '#platform/storage.server.ts'
import { DISPLAY_WIDTH, type TemplateJson, type OtherParams, THUMBNAIL_WIDTH } from '#domain/gallery/template-json.ts'
import { guidedRecord, pickGuided, type GuidedField } from '#domain/generation/guided-fields.ts'
import type { TemplateUpload } from '#domain/gallery/gallery-forms.ts'
import { requireGalleryStyle } from '#domain/gallery/styles.server.ts'

/**
 * The gallery's templates: a picture with the prompt and options it was made with, which a user
 * applies to their own pet. The spec names the same thing "inspiration image" and "case" in its
 * URLs (/inspiration, /update-case, /api/image/delete/inspiration/:id); the code says template.
 */

// Storage keys made before the rename keep this prefix; keys are content-hashed, so it stays.
const KEY_PREFIX = 'inspiration'

function toTemplateJson(row: Template): TemplateJson {
  const stored = row.other_params
  const otherParams: OtherParams = {
    ...guidedRecord((field) => stored[field] ?? ''),
    templatePrompt: row.template_prompt,
  }
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

/** Every template, newest first. */
export async function listTemplates(db: DB): Promise<TemplateJson[]> {
  const rows = await db.selectFrom('templates').selectAll().orderBy('created_at', 'desc').orderBy('id').execute()
  return rows.map(toTemplateJson)
}

export interface NewTemplate {
  /** Untrusted bytes: checked by content, re-encoded without metadata. */
  image: Buffer
  style: string
  name: string
  prompt: string
  templatePrompt: string
  otherParams: Partial<Record<GuidedField, string>>
  createdBy: string | null
}

/**
 * Stores a template: the cleaned original plus its 480 and 960 px WebP renditions (made once, here),
 * under content-hashed keys, then its row. The style must be a gallery style.
 */
export async function createTemplate(db: DB, storage: MediaStorage, input: NewTemplate): Promise<TemplateJson> {
  const style = await requireGalleryStyle(db, input.style)
  const original = await normalizeUploadedImage(input.image)
  // Users apply a template's prompts to paid runs: they are moderated like a user's own text.
  await requireModeratedInputs({
    text: [input.prompt, input.templatePrompt].filter(Boolean).join('\n'),
    photos: [original.bytes],
  })
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
  const otherParams = guidedRecord((field) => input.otherParams[field] ?? '')
  const row = await db
    .insertInto('templates')
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
  return toTemplateJson(row)
}

/** An Update Case upload (API or page), validated by templateUploadSchema, stored for `adminId`. */
export async function createTemplateFromUpload(
  db: DB,
  storage: MediaStorage,
  upload: TemplateUpload,
  adminId: string,
): Promise<TemplateJson> {
  return createTemplate(db, storage, {
    image: Buffer.from(await upload.image.arrayBuffer()),
    style: upload.style,
    name: upload.name,
    prompt: upload.prompt,
    templatePrompt: upload.templatePrompt,
    otherParams: pickGuided(upload),
    createdBy: adminId,
  })
}

const imageId = z.string().uuid()

/**
 * Deletes a template and its stored files. Keys are content-hashed, so the same upload
 * twice shares files: only files no remaining row points at are removed.
 */
export async function deleteTemplate(db: DB, storage: MediaStorage, id: string): Promise<void> {
  if (!imageId.safeParse(id).success) throw badRequest('Invalid image id')
  const unusedKeys = await db.transaction().execute(async (tx) => {
    const row = await tx.deleteFrom('templates').where('id', '=', id).returningAll().executeTakeFirst()
    if (!row) throw notFound('Image not found')
    const keys = [row.image_key, row.thumbnail_key, row.display_key]
    const stillUsed = await tx
      .selectFrom('templates')
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
