/**
 * Sets a title on a finished image (issue 41, item 3): the plaque is drawn as an SVG of the title's
 * box only, its letters as the bundled font's outlines (title-fonts.server.ts), placed inside the
 * print-safe area (domain/media/print-readiness.ts) and composited with sharp. The titled copy is a
 * JPEG at 300 DPI, so setting a title on a 4096 px version takes one decode and one fast encode;
 * the plain version stays as it was. The same drawing makes the page's preview.
 */
import sharp from 'sharp'
import { printSafeArea } from '#domain/media/print-readiness.ts'
import { outlineOf, type Outline } from './title-fonts.server.ts'
import type { VersionTitle } from './title-options.ts'

interface Box {
  left: number
  top: number
  width: number
  height: number
}

const CREAM = '#fffaf0'
const INK = '#2a2118'

/** The title's letters, centred on (cx, baseline). */
function straightLine(outline: Outline, cx: number, baseline: number, fill: string) {
  const start = cx - outline.width / 2
  return outline.glyphs
    .map((glyph) => `<path transform="translate(${fixed(start + glyph.x)} ${fixed(baseline)})" d="${glyph.d}"/>`)
    .join('')
    .replace(/^/, `<g fill="${fill}">`)
    .concat('</g>')
}

/** The largest size up to `size` at which the text is at most `width` wide. */
function fitted(title: VersionTitle, size: number, width: number) {
  const outline = outlineOf(title.text, title.font, size)
  if (outline.width <= width) return outline
  return outlineOf(title.text, title.font, Math.floor((size * width) / outline.width))
}

const fixed = (value: number) => Math.round(value * 100) / 100
const svg = (box: Box, body: string) =>
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${box.width}" height="${box.height}" viewBox="0 0 ${box.width} ${box.height}">${body}</svg>`,
  )

/** A dark band across the bottom of the safe area, the title in cream. */
function band(title: VersionTitle, safe: Box, unit: number) {
  const height = Math.round(unit * 0.13)
  const box = { left: safe.left, top: safe.top + safe.height - height, width: safe.width, height }
  const outline = fitted(title, height * 0.56, box.width * 0.88)
  const baseline = height / 2 + (outline.ascent - outline.descent) / 2 - outline.ascent * 0.12
  const rule = Math.max(1, Math.round(height * 0.025))
  return {
    box,
    svg: svg(
      box,
      `<rect width="${box.width}" height="${height}" fill="#16110c" fill-opacity="0.74"/>` +
        `<rect y="${rule * 2}" width="${box.width}" height="${rule}" fill="${CREAM}" fill-opacity="0.5"/>` +
        `<rect y="${height - rule * 3}" width="${box.width}" height="${rule}" fill="${CREAM}" fill-opacity="0.5"/>` +
        straightLine(outline, box.width / 2, baseline, CREAM),
    ),
  }
}

/** A small brass plaque centred at the bottom of the safe area, the title engraved in dark ink. */
function plaque(title: VersionTitle, safe: Box, unit: number) {
  const height = Math.round(unit * 0.1)
  const natural = outlineOf(title.text, title.font, height * 0.5)
  const width = Math.round(Math.min(safe.width, Math.max(safe.width * 0.42, natural.width / 0.82)))
  const box = {
    left: safe.left + Math.round((safe.width - width) / 2),
    top: safe.top + safe.height - height,
    width,
    height,
  }
  const outline = fitted(title, height * 0.5, width * 0.82)
  const baseline = height / 2 + (outline.ascent - outline.descent) / 2 - outline.ascent * 0.12
  const edge = Math.max(1, Math.round(height * 0.05))
  const radius = Math.round(height * 0.18)
  return {
    box,
    svg: svg(
      box,
      `<defs><linearGradient id="brass" x1="0" y1="0" x2="0" y2="1">` +
        `<stop offset="0" stop-color="#e8cf87"/><stop offset="0.55" stop-color="#c9a24b"/><stop offset="1" stop-color="#9c7a2c"/>` +
        `</linearGradient></defs>` +
        `<rect width="${width}" height="${height}" rx="${radius}" fill="url(#brass)"/>` +
        `<rect x="${edge * 1.5}" y="${edge * 1.5}" width="${width - edge * 3}" height="${height - edge * 3}" rx="${radius * 0.7}" fill="none" stroke="#6f5418" stroke-width="${edge}"/>` +
        straightLine(outline, width / 2, baseline, INK),
    ),
  }
}

/** The title arched over the top of the safe area, cream letters outlined in dark ink. */
function arch(title: VersionTitle, safe: Box, unit: number) {
  const radius = safe.width * 0.8
  // At most a third of the circle's half: the letters stay upright enough to read.
  const outline = fitted(title, unit * 0.1, radius * (Math.PI / 3) * 0.95)
  const reach = outline.width / 2 / radius
  const stroke = fixed(outline.ascent * 0.1)
  const pad = Math.ceil(stroke * 2)
  const rise = radius * (1 - Math.cos(reach))
  const height = Math.ceil(outline.ascent + outline.descent + rise + pad * 2)
  const box = { left: safe.left, top: safe.top, width: safe.width, height }
  const cx = box.width / 2
  const cy = pad + outline.ascent + radius
  const letters = outline.glyphs
    .map((glyph) => {
      const along = glyph.x + glyph.advance / 2 - outline.width / 2
      const degrees = fixed(((along / radius) * 180) / Math.PI)
      return `<path transform="translate(${fixed(cx)} ${fixed(cy)}) rotate(${degrees}) translate(${fixed(-glyph.advance / 2)} ${fixed(-radius)})" d="${glyph.d}"/>`
    })
    .join('')
  return {
    box,
    svg: svg(
      box,
      `<g fill="${CREAM}" stroke="${INK}" stroke-width="${stroke}" stroke-linejoin="round" paint-order="stroke">${letters}</g>`,
    ),
  }
}

const styles = { band, plaque, arch }

/** Where the title goes on a `width`×`height` image, and its drawing. */
function titleLayer(title: VersionTitle, width: number, height: number) {
  const safe = printSafeArea(width, height)
  return styles[title.style](title, safe, Math.min(safe.width, safe.height))
}

/** The image with its title: a JPEG (quality 92) at 300 DPI, the rest of the picture unchanged. */
export async function setTitle(image: Buffer, title: VersionTitle): Promise<Buffer> {
  const { width, height } = await sharp(image).metadata()
  if (!width || !height) throw new Error('The image has no size')
  const layer = titleLayer(title, width, height)
  return (
    sharp(image)
      .composite([{ input: layer.svg, left: layer.box.left, top: layer.box.top }])
      // Without the second, Huffman-optimising pass: twice as fast on 4096 px for a file ~7 % larger.
      .jpeg({ quality: 92, optimiseCoding: false })
      .withMetadata({ density: 300 })
      .toBuffer()
  )
}

const PREVIEW_EDGE = 512

/**
 * The preview the page shows before paying: the title as it will be set, on a plain square with the
 * print-safe area dashed, so a typo is caught before the run is paid for.
 */
export async function titlePreview(title: VersionTitle): Promise<Buffer> {
  const safe = printSafeArea(PREVIEW_EDGE, PREVIEW_EDGE)
  const backdrop = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${PREVIEW_EDGE}" height="${PREVIEW_EDGE}">` +
      `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#c8b8a2"/><stop offset="1" stop-color="#7d8a96"/></linearGradient></defs>` +
      `<rect width="100%" height="100%" fill="url(#g)"/>` +
      `<rect x="${safe.left}" y="${safe.top}" width="${safe.width}" height="${safe.height}" fill="none" stroke="#ffffff" stroke-opacity="0.7" stroke-dasharray="6 6"/>` +
      `</svg>`,
  )
  const layer = titleLayer(title, PREVIEW_EDGE, PREVIEW_EDGE)
  return sharp(backdrop)
    .composite([{ input: layer.svg, left: layer.box.left, top: layer.box.top }])
    .png()
    .toBuffer()
}
