import { createHash } from 'node:crypto'
import sharp from 'sharp'
import type { PrintKind } from '#platform/db-schema.ts'
import { cropRect, wrapBand, type CropPosition, type Size } from './print-geometry.ts'

/**
 * The two pictures of a print (issue 39, items 4 and 5), drawn with sharp from the version: the
 * mockup the customer sees before ordering (the crop as it will be printed, on the product, an
 * image-wrapped canvas with its folded band shaded), and the print file the lab downloads (the same
 * crop at the print area's pixels, so the lab's fillPrintArea has nothing left to cut).
 */

const MOCKUP_LONG_EDGE = 640
const WALL = '#ece6dc'

export interface PrintPicture {
  kind: PrintKind
  /** The chosen wrap or frame colour. */
  choice: string | null
  /** The print area in pixels, in the version's orientation. */
  area: Size
  /** The product's face in inches, in the same orientation. */
  face: Size
  crop: CropPosition
}

/** The crop at the print area's pixels, as a JPEG, with its MD5 (the lab checks it). */
export async function renderPrintFile(source: Buffer, picture: Pick<PrintPicture, 'area' | 'crop'>) {
  const image = sharp(source).rotate()
  const meta = await image.metadata()
  const rect = cropRect({ width: meta.width ?? 0, height: meta.height ?? 0 }, picture.area, picture.crop)
  const bytes = await image
    .extract(rect)
    .resize(picture.area.width, picture.area.height, { fit: 'fill', kernel: 'lanczos3' })
    .jpeg({ quality: 92 })
    .toBuffer()
  return { bytes, md5: createHash('md5').update(bytes).digest('hex') }
}

/** The mockup: the crop on the product, on a wall. */
export async function renderMockup(source: Buffer, picture: PrintPicture): Promise<Buffer> {
  const image = sharp(source).rotate()
  const meta = await image.metadata()
  const rect = cropRect({ width: meta.width ?? 0, height: meta.height ?? 0 }, picture.area, picture.crop)
  const scale = MOCKUP_LONG_EDGE / Math.max(picture.area.width, picture.area.height)
  const width = Math.max(1, Math.round(picture.area.width * scale))
  const height = Math.max(1, Math.round(picture.area.height * scale))
  let print = await image.extract(rect).resize(width, height, { fit: 'fill' }).png().toBuffer()

  if (picture.kind === 'canvas' && picture.choice === 'ImageWrap') {
    print = await sharp(print)
      .composite([{ input: Buffer.from(wrapShade(width, height, wrapBand(picture.face))), top: 0, left: 0 }])
      .png()
      .toBuffer()
  }
  const border = borderOf(picture, width)
  const framed =
    border.size > 0
      ? await sharp(print)
          .extend({
            top: border.size,
            bottom: border.size,
            left: border.size,
            right: border.size,
            background: border.colour,
          })
          .png()
          .toBuffer()
      : print
  const margin = Math.round(MOCKUP_LONG_EDGE * 0.08)
  return sharp(framed)
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: WALL })
    .jpeg({ quality: 82 })
    .toBuffer()
}

/** The band an image-wrapped canvas folds round its bars: shaded, with the fold marked. */
function wrapShade(width: number, height: number, band: { x: number; y: number }) {
  const bx = Math.round(width * band.x)
  const by = Math.round(height * band.y)
  const shade = 'fill="#000" fill-opacity="0.38"'
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <rect x="0" y="0" width="${width}" height="${by}" ${shade}/>
  <rect x="0" y="${height - by}" width="${width}" height="${by}" ${shade}/>
  <rect x="0" y="${by}" width="${bx}" height="${height - 2 * by}" ${shade}/>
  <rect x="${width - bx}" y="${by}" width="${bx}" height="${height - 2 * by}" ${shade}/>
  <rect x="${bx}" y="${by}" width="${width - 2 * bx}" height="${height - 2 * by}" fill="none" stroke="#fff" stroke-width="2" stroke-dasharray="8 6"/>
</svg>`
}

/** A frame's moulding, a painted canvas edge, or nothing for a poster and a wrapped canvas. */
function borderOf(picture: PrintPicture, width: number): { size: number; colour: string } {
  if (picture.kind === 'framed') {
    const colour = picture.choice === 'white' ? '#f7f7f5' : picture.choice === 'black' ? '#1d1d1d' : '#8a6a45'
    return { size: Math.round(width * 0.05), colour }
  }
  if (picture.kind === 'canvas' && (picture.choice === 'Black' || picture.choice === 'White')) {
    return { size: Math.round(width * 0.015), colour: picture.choice === 'Black' ? '#111' : '#fafafa' }
  }
  return { size: 0, colour: WALL }
}
