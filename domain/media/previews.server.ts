import sharp from 'sharp'
import { getMediaBytes, isValidMediaKey, type MediaStorage } from '#platform/storage.server.ts'
import { PREVIEW_WIDTHS, type PreviewWidth } from './media-url.ts'

/**
 * Smaller WebP copies of a stored picture, for the pages that show a portrait in a grid (/history):
 * a provider's result is a PNG of 1-2 MB, which a phone on a slow connection would wait seconds
 * for. Made the first time one is asked for (GET /media/<key>?w=480), kept beside the picture
 * under a key of its own, and deleted with it (taskKeys).
 */

/** Pictures a preview can be made of: what providers and the title step store. */
const PREVIEWABLE = /\.(png|jpe?g|webp)$/

/** Where the preview of `key` at `width` is kept. */
export const previewKey = (key: string, width: PreviewWidth) => `previews/${width}/${key.replace(PREVIEWABLE, '')}.webp`

/** A picture previews can be made of (never a preview itself). */
const hasPreviews = (key: string) => PREVIEWABLE.test(key) && !key.startsWith('previews/')

/** Every preview a stored picture may have (none for anything else), for deleting them with it. */
export const previewKeysOf = (key: string) =>
  hasPreviews(key) ? PREVIEW_WIDTHS.map((width) => previewKey(key, width)) : []

/**
 * The key of the preview of `key` at `width`, made now if it was not made before; null when there
 * is no such picture or it cannot be read as one.
 */
export async function ensurePreview(storage: MediaStorage, key: string, width: PreviewWidth) {
  if (!isValidMediaKey(key) || !hasPreviews(key)) return null
  const target = previewKey(key, width)
  // A key nested as deep as keys may be has no room for the preview's two folders.
  if (!isValidMediaKey(target)) return null
  if (await storage.stat(target)) return target
  const original = await getMediaBytes(storage, key)
  if (!original) return null
  const preview = await sharp(original)
    .resize({ width, withoutEnlargement: true })
    .webp({ quality: 78 })
    .toBuffer()
    .catch(() => null)
  if (!preview) return null
  await storage.put(target, preview, 'image/webp')
  return target
}
