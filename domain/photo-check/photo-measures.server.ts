/**
 * The numbers the local photo check judges by, measured with sharp in one decode: the photo's
 * size, how sharp its sharpest part is and how much it varies at all. Fast on a 12-megapixel JPEG
 * because libvips shrinks while decoding (shrink-on-load) straight to the working size.
 */
import sharp from 'sharp'
import { badRequest } from '#domain/http-error.server.ts'

/** The long side the measures are taken at: fur detail survives, a phone photo decodes in ~50 ms. */
const WORKING_SIDE = 512
/** The grid the sharpness is measured on: the sharpest cell stands for the photo (a portrait-mode blur behind the pet is fine). */
const GRID = 4

export interface PhotoMeasures {
  /** The photo's own size, upright (EXIF orientation applied). */
  width: number
  height: number
  /** Variance of the Laplacian of the greyscale working image, in its sharpest grid cell. */
  sharpness: number
  /** Standard deviation of the greyscale working image (0: one flat colour). */
  contrast: number
  /** The working image as a JPEG, for the vision model (small: few input tokens). */
  preview: Buffer
}

export async function measurePhoto(bytes: Buffer): Promise<PhotoMeasures> {
  const unreadable = () => badRequest('The image file is damaged and could not be read')
  const image = sharp(bytes, { failOn: 'error' }).autoOrient()
  const metadata = await image.metadata().catch(() => {
    throw unreadable()
  })
  const working = await image
    .resize(WORKING_SIDE, WORKING_SIDE, { fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
    .catch(() => {
      throw unreadable()
    })
  const { width: w, height: h, channels } = working.info
  const grey = new Float32Array(w * h)
  for (let i = 0, p = 0; i < grey.length; i++, p += channels) {
    grey[i] = 0.299 * working.data[p] + 0.587 * working.data[p + 1] + 0.114 * working.data[p + 2]
  }
  const preview = await sharp(working.data, { raw: { width: w, height: h, channels } })
    .jpeg({ quality: 80 })
    .toBuffer()
  const upright = (metadata.orientation ?? 1) >= 5
  return {
    width: upright ? metadata.height : metadata.width,
    height: upright ? metadata.width : metadata.height,
    sharpness: sharpestCellLaplacianVariance(grey, w, h),
    contrast: Math.sqrt(variance(grey)),
    preview,
  }
}

/** The 4-neighbour Laplacian's variance in each GRID×GRID cell; the largest. */
function sharpestCellLaplacianVariance(grey: Float32Array, w: number, h: number) {
  let best = 0
  for (let cy = 0; cy < GRID; cy++) {
    for (let cx = 0; cx < GRID; cx++) {
      const x0 = Math.max(1, Math.floor((cx * w) / GRID))
      const x1 = Math.min(w - 1, Math.floor(((cx + 1) * w) / GRID))
      const y0 = Math.max(1, Math.floor((cy * h) / GRID))
      const y1 = Math.min(h - 1, Math.floor(((cy + 1) * h) / GRID))
      const laplacians: number[] = []
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const i = y * w + x
          laplacians.push(grey[i - 1] + grey[i + 1] + grey[i - w] + grey[i + w] - 4 * grey[i])
        }
      }
      best = Math.max(best, variance(laplacians))
    }
  }
  return best
}

/**
 * The population variance in two passes (the mean, then the squared distances from it): never
 * below 0, where E[x²] − E[x]² rounds below 0 on a flat image and its square root is NaN (issue 38).
 */
function variance(values: ArrayLike<number>) {
  const n = values.length
  if (n === 0) return 0
  let sum = 0
  for (let i = 0; i < n; i++) sum += values[i]
  const mean = sum / n
  let squares = 0
  for (let i = 0; i < n; i++) squares += (values[i] - mean) ** 2
  return squares / n
}
