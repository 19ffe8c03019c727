import sharp from 'sharp'
import type { Metadata, Sharp } from 'sharp'
import { badRequest, payloadTooLarge } from '#domain/http-error.server.ts'
import { createLimiter } from '#domain/limits/concurrency.server.ts'

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024
const MAX_UPLOAD_PIXELS = 40_000_000
const AVATAR_SIZE = 256
/** Stored uploads are at most this many pixels on their longer side: providers work at about 1024. */
const MAX_STORED_SIDE = 2048

// Every upload is a different image, so libvips's operation cache would only hold on to memory.
sharp.cache(false)

export type EncodedImage = { bytes: Buffer; mimeType: string; ext: string; width: number; height: number }
export type UploadLimits = { maxBytes?: number; maxPixels?: number }

export const fileTooLarge = (maxBytes: number) =>
  payloadTooLarge(`File size should not exceed ${Math.round(maxBytes / 1024 / 1024)}MB`)

const unsupported = () => badRequest('Unsupported file type: please upload a JPEG, PNG, WebP or GIF image')

/**
 * Checks an upload by its content (never its name or declared type), then re-encodes it upright
 * and without metadata (EXIF, GPS, ICC), no larger than MAX_STORED_SIDE: JPEG for photos, PNG when
 * it has transparency. Animated GIF and WebP keep their first frame. Shrinking while decoding
 * (libvips's shrink-on-load) also keeps the memory a large photo needs small.
 */
export async function normalizeUploadedImage(bytes: Buffer, limits: UploadLimits = {}): Promise<EncodedImage> {
  const { metadata, maxPixels } = await inspectUpload(bytes, limits)
  const image = openImage(bytes, maxPixels).resize({
    width: MAX_STORED_SIDE,
    height: MAX_STORED_SIDE,
    fit: 'inside',
    withoutEnlargement: true,
  })
  return encode(metadata.hasAlpha ? image.png() : image.jpeg({ quality: 90 }))
}

// Decoding a large photo peaks at about 180 MB (24 megapixels) and is CPU-bound, so parallel
// uploads (generator photos, videos and saved pets alike) and share images take turns: the web's
// memory stays bounded (bench/generation.ts measures it). The bytes are copied out of the form
// only once a turn comes.
export const decodeTurn = createLimiter(1)

/**
 * normalizeUploadedImage of an uploaded form file, one upload at a time in this process; with the
 * bytes as uploaded (`original`), which the photo check reads.
 */
export function normalizeUploadedFile(file: File): Promise<EncodedImage & { original: Buffer }> {
  return decodeTurn(async () => {
    const original = Buffer.from(await file.arrayBuffer())
    return { ...(await normalizeUploadedImage(original)), original }
  })
}

/** A square avatar cropped from the centre of an uploaded picture. */
export async function makeAvatar(bytes: Buffer, limits: UploadLimits = {}): Promise<EncodedImage> {
  const { maxPixels } = await inspectUpload(bytes, limits)
  return encode(openImage(bytes, maxPixels).resize(AVATAR_SIZE, AVATAR_SIZE, { fit: 'cover' }).webp({ quality: 85 }))
}

/** A WebP no wider than `width`, for grids and previews of stored images. */
export async function makeThumbnail(bytes: Buffer, width: number): Promise<EncodedImage> {
  return encode(openImage(bytes, MAX_UPLOAD_PIXELS).resize({ width, withoutEnlargement: true }).webp({ quality: 80 }))
}

/**
 * The bytes of a `data:image/...;base64,` URL, as the profile page sends its avatar. The bytes are
 * still untrusted: pass them to makeAvatar or normalizeUploadedImage.
 */
export function decodeImageDataUrl(dataUrl: string, maxBytes = MAX_UPLOAD_BYTES): Buffer {
  const match = /^data:image\/[a-z0-9.+-]+(?:;[a-z0-9-]+=[a-z0-9.+-]+)*;base64,/i.exec(dataUrl)
  if (!match) throw badRequest('The picture must be an image data URL')
  const payload = dataUrl.slice(match[0].length)
  // Size first, from the encoded length, so an oversized payload is never decoded.
  if (Math.floor((payload.length * 3) / 4) - paddingLength(payload) > maxBytes) throw fileTooLarge(maxBytes)
  if (payload.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) {
    throw badRequest('The picture data is not valid base64')
  }
  const bytes = Buffer.from(payload, 'base64')
  if (bytes.length === 0) throw badRequest('The picture is empty')
  return bytes
}

/** Refuses what normalizeUploadedImage would (too large, not a supported image) without decoding it. */
export async function assertUploadableImage(bytes: Buffer, limits: UploadLimits = {}) {
  await inspectUpload(bytes, limits)
}

const paddingLength = (base64: string) => (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0)

const allowedFormats = new Set<string>(['jpeg', 'png', 'webp', 'gif', 'heif'])

async function inspectUpload(
  bytes: Buffer,
  { maxBytes = MAX_UPLOAD_BYTES, maxPixels = MAX_UPLOAD_PIXELS }: UploadLimits,
) {
  if (bytes.length > maxBytes) throw fileTooLarge(maxBytes)
  // metadata() reads only the header, so no pixel limit is needed yet; ours is checked just below.
  const metadata = await sharp(bytes, { limitInputPixels: false })
    .metadata()
    .catch(() => {
      throw unsupported()
    })
  if (!allowedFormats.has(metadata.format) || !isDecodableHeif(metadata)) throw unsupported()
  if (metadata.width * metadata.height > maxPixels) {
    throw payloadTooLarge(`The image is too large (max ${Math.floor(maxPixels / 1_000_000)} megapixels)`)
  }
  return { metadata, maxPixels }
}

// Sharp's prebuilt libvips decodes AVIF (HEIF with AV1) but not HEVC, the codec of iPhone HEIC photos.
const isDecodableHeif = (metadata: Metadata) => metadata.format !== 'heif' || metadata.compression === 'av1'

function openImage(bytes: Buffer, maxPixels: number): Sharp {
  // limitInputPixels guards decoding too; without withMetadata() sharp writes no metadata out.
  return sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' }).autoOrient()
}

async function encode(image: Sharp): Promise<EncodedImage> {
  const { data, info } = await image.toBuffer({ resolveWithObject: true }).catch(() => {
    throw badRequest('The image file is damaged and could not be read')
  })
  const format = outputFormats[info.format]
  return { bytes: data, ...format, width: info.width, height: info.height }
}

const outputFormats: Record<string, { mimeType: string; ext: string }> = {
  jpeg: { mimeType: 'image/jpeg', ext: 'jpg' },
  png: { mimeType: 'image/png', ext: 'png' },
  webp: { mimeType: 'image/webp', ext: 'webp' },
}
