/**
 * Where a version is cut for a print (issue 39, items 2 and 4): the print area in pixels comes from
 * the lab's product data for the chosen variant; the print takes the version's orientation (the lab
 * turns images to fit); the crop is the largest rectangle of the print's shape inside the version,
 * slid along its free axis by the user (`x`, `y` from 0 to 1, 0.5 is centred). Pure arithmetic,
 * shared by the options, the quote, the mockup and the print file.
 */

export interface Size {
  width: number
  height: number
}

export interface CropPosition {
  x: number
  y: number
}

const CENTRED: CropPosition = { x: 0.5, y: 0.5 }

/** The print area turned to the version's orientation (a square version keeps the lab's). */
export function orientedArea(version: Size, area: Size): Size {
  const versionLandscape = version.width > version.height
  const versionPortrait = version.width < version.height
  const areaLandscape = area.width > area.height
  const areaPortrait = area.width < area.height
  const turn = (versionLandscape && areaPortrait) || (versionPortrait && areaLandscape)
  return turn ? { width: area.height, height: area.width } : area
}

/** The crop of the version, in its pixels, with the print area's shape. */
export function cropRect(version: Size, area: Size, position: CropPosition = CENTRED) {
  const scale = Math.min(version.width / area.width, version.height / area.height)
  const width = Math.min(version.width, Math.round(area.width * scale))
  const height = Math.min(version.height, Math.round(area.height * scale))
  return {
    left: Math.round((version.width - width) * clamp(position.x)),
    top: Math.round((version.height - height) * clamp(position.y)),
    width,
    height,
  }
}

/** Whether the version's crop has at least the print area's pixels: else "Make it bigger first". */
export function fillsPrintArea(version: Size, area: Size) {
  const oriented = orientedArea(version, area)
  const crop = cropRect(version, oriented)
  return crop.width >= oriented.width && crop.height >= oriented.height
}

/**
 * The share of each side an image-wrapped canvas folds round its 38 mm bars (1.575 in with the
 * lab's bleed, decision 0042), for shading on the mockup.
 */
export function wrapBand(face: Size): { x: number; y: number } {
  const edge = 1.575
  return { x: edge / (face.width + 2 * edge), y: edge / (face.height + 2 * edge) }
}

const clamp = (value: number) => Math.min(1, Math.max(0, Number.isFinite(value) ? value : 0.5))
