/**
 * How large a portrait prints well (issue 32, item 2): a print is sharp at 300 pixels per inch and
 * good at 200. A standard size fits when the image, cropped to that size's shape (in either
 * orientation), still has that many pixels per inch; the crop is said when the shapes differ. Pure
 * arithmetic, shared by the task answer, the result panel and /history.
 */

/** The standard photo print sizes, small to large, in inches (short side first). */
const STANDARD_SIZES: readonly (readonly [number, number])[] = [
  [4, 6],
  [5, 7],
  [8, 10],
  [11, 14],
  [16, 20],
  [18, 24],
]

const SHARP_DPI = 300
const GOOD_DPI = 200
const CM_PER_INCH = 2.54

export interface PrintSize {
  /** "8×10" */
  name: string
  inches: { width: number; height: number }
  /** Whole centimetres, as print shops name them: 8×10 in is 20×25 cm. */
  cm: { width: number; height: number }
  /** The image's shape differs from the print's: part of it is cropped away. */
  needsCrop: boolean
}

export interface PrintReadiness {
  widthPx: number
  heightPx: number
  /** The image's own size printed at 300 DPI, to 0.1 in. */
  inchesAt300: { width: number; height: number }
  /** The same in centimetres, to 0.1 cm. */
  cmAt300: { width: number; height: number }
  /** The largest standard size that is sharp (300 DPI) and the largest good at 200 DPI; null: none is. */
  largestPrint: { sharp: PrintSize | null; good: PrintSize | null }
}

export function printReadiness(widthPx: number, heightPx: number): PrintReadiness {
  return {
    widthPx,
    heightPx,
    inchesAt300: { width: tenths(widthPx / SHARP_DPI), height: tenths(heightPx / SHARP_DPI) },
    cmAt300: {
      width: tenths((widthPx / SHARP_DPI) * CM_PER_INCH),
      height: tenths((heightPx / SHARP_DPI) * CM_PER_INCH),
    },
    largestPrint: { sharp: largestAt(widthPx, heightPx, SHARP_DPI), good: largestAt(widthPx, heightPx, GOOD_DPI) },
  }
}

/** The largest standard size whose crop of a `widthPx`×`heightPx` image has `dpi` pixels per inch. */
function largestAt(widthPx: number, heightPx: number, dpi: number): PrintSize | null {
  const short = Math.min(widthPx, heightPx)
  const long = Math.max(widthPx, heightPx)
  const fits = STANDARD_SIZES.filter(([a, b]) => a * dpi <= short && b * dpi <= long)
  const largest = fits.at(-1)
  if (!largest) return null
  const [a, b] = largest
  // Landscape images print landscape: the print's orientation follows the image's.
  const [width, height] = widthPx > heightPx ? [b, a] : [a, b]
  return {
    name: `${a}×${b}`,
    inches: { width, height },
    cm: { width: Math.round(width * CM_PER_INCH), height: Math.round(height * CM_PER_INCH) },
    needsCrop: short * b !== long * a,
  }
}

/** "Prints sharp up to 8×10 in (20×25 cm), cropped to shape; good at 200 DPI up to 16×20 in (41×51 cm), …" */
export function printSentence(print: PrintReadiness): string {
  const { sharp, good } = print.largestPrint
  const first = sharp
    ? `Prints sharp up to ${sizeWords(sharp)}`
    : `Prints sharp only up to ${print.inchesAt300.width}×${print.inchesAt300.height} in ` +
      `(${print.cmAt300.width}×${print.cmAt300.height} cm), smaller than a 4×6 in print`
  const second = good && good.name !== sharp?.name ? `; good at ${GOOD_DPI} DPI up to ${sizeWords(good)}` : ''
  return `${first}${second}.`
}

function sizeWords(size: PrintSize): string {
  const crop = size.needsCrop ? ', cropped to shape' : ''
  return `${size.name} in (${size.cm.width}×${size.cm.height} cm)${crop}`
}

const tenths = (value: number) => Math.floor(value * 10) / 10

/** What a print shop may trim from each edge, as a share of the short edge. */
const TRIM_MARGIN = 0.03

/**
 * The part of a `widthPx`×`heightPx` image that every standard size keeps (issue 41: a title is set
 * inside it): the crops above are centred and take the image's orientation, so the area is the
 * intersection of those centred crops, less a trim margin on every edge. Whole pixels.
 */
export function printSafeArea(widthPx: number, heightPx: number) {
  const portrait = widthPx <= heightPx
  let width = widthPx
  let height = heightPx
  for (const [a, b] of STANDARD_SIZES) {
    const [w, h] = portrait ? [a, b] : [b, a]
    const scale = Math.min(widthPx / w, heightPx / h)
    width = Math.min(width, w * scale)
    height = Math.min(height, h * scale)
  }
  const margin = Math.ceil(Math.min(widthPx, heightPx) * TRIM_MARGIN)
  const left = Math.ceil((widthPx - width) / 2) + margin
  const top = Math.ceil((heightPx - height) / 2) + margin
  return { left, top, width: widthPx - 2 * left, height: heightPx - 2 * top }
}
