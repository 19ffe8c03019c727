/**
 * The offline portrait's layout: the frame behind the photo, and the layer on top of it (title,
 * outfit touches, badges naming the guided choices, and the caption saying which renderer made it).
 */
import type { GuidedItem } from '#domain/generation/prompt.ts'
import type { FrameShape, Look } from './looks.ts'
import { CANVAS_SIZE, SANS_FONT, circle, colourFor, escapeXml, round, svgDocument, textWidth, truncate } from './svg.ts'

/** Where the photo sits on the canvas (square, centred horizontally). */
export const PHOTO = { x: 182, y: 110, size: 660 }

const FRAME_WIDTH = 16
const CAPTION = 'Pawtrait · offline renderer'

/** An SVG element drawing the frame shape in the square (x, y, size), with extra attributes. */
function shape(frame: FrameShape, x: number, y: number, size: number, attributes: string): string {
  switch (frame) {
    case 'rounded':
      return `<rect x="${x}" y="${y}" width="${size}" height="${size}" rx="${round(size * 0.07)}" ${attributes}/>`
    case 'square':
      return `<rect x="${x}" y="${y}" width="${size}" height="${size}" ${attributes}/>`
    case 'arch': {
      const r = size / 2
      return `<path d="M${x} ${y + size} V${y + r} A${r} ${r} 0 0 1 ${x + size} ${y + r} V${y + size} Z" ${attributes}/>`
    }
    case 'oval':
      return `<ellipse cx="${x + size / 2}" cy="${y + size / 2}" rx="${size / 2}" ry="${size / 2}" ${attributes}/>`
  }
}

/** White where the photo shows, transparent elsewhere: composited with 'dest-in'. */
export function photoMask(look: Look): Buffer {
  return svgDocument(PHOTO.size, PHOTO.size, shape(look.frame, 0, 0, PHOTO.size, 'fill="#ffffff"'))
}

/** Shadow, frame and mat line, drawn on the background under the photo. */
export function frameLayer(look: Look): string {
  const grown = (by: number, attributes: string) =>
    shape(look.frame, PHOTO.x - by, PHOTO.y - by, PHOTO.size + 2 * by, attributes)
  return (
    '<defs><filter id="shadow" x="-20%" y="-20%" width="140%" height="140%">' +
    '<feGaussianBlur stdDeviation="14"/></filter></defs>' +
    `<g transform="translate(0 16)">${grown(FRAME_WIDTH, 'fill="#000000" opacity="0.35" filter="url(#shadow)"')}</g>` +
    grown(FRAME_WIDTH, `fill="${look.accent}"`) +
    grown(5, `fill="${look.paper}"`)
  )
}

/** Everything drawn over the photo, as a full-canvas SVG. */
export function topLayer(look: Look, items: GuidedItem[], personified: boolean): Buffer {
  const chosen = (key: GuidedItem['key']) => items.find((item) => item.key === key)?.value
  const top = chosen('clothingTop')
  const accessories = chosen('accessories')
  const badges = [
    ...(personified ? [{ text: 'Personified', colour: look.accent }] : []),
    ...items.map((item) => ({ text: `${item.label}: ${item.value}`, colour: colourFor(item.value) })),
  ]
  return svgDocument(
    CANVAS_SIZE,
    CANVAS_SIZE,
    (top ? sash(look, colourFor(top)) : '') +
      (accessories ? rosette(PHOTO.x + PHOTO.size - 30, PHOTO.y + 40, colourFor(accessories)) : '') +
      label(look.title, CANVAS_SIZE / 2, 24, 34, look, look.titleFont, 'bold') +
      badgeRows(badges, look) +
      label(CAPTION, CANVAS_SIZE / 2, 962, 17, look, SANS_FONT, 'normal', 0.85),
  )
}

/** A band across the lower photo in the colour of the chosen top, clipped to the frame. */
function sash(look: Look, colour: string): string {
  const { x, y, size } = PHOTO
  const band = (from: number, to: number) =>
    `M${x} ${y + size * (from + 0.14)} L${x + size} ${y + size * from} L${x + size} ${y + size * to} L${x} ${y + size * (to + 0.14)} Z`
  return (
    `<defs><clipPath id="photo">${shape(look.frame, x, y, size, '')}</clipPath></defs>` +
    `<g clip-path="url(#photo)"><path d="${band(0.74, 0.84)}" fill="${colour}" opacity="0.88"/>` +
    `<path d="${band(0.775, 0.79)}" fill="#ffffff" opacity="0.35"/></g>`
  )
}

/** A prize rosette pinned to the frame, in the colour of the chosen accessories. */
function rosette(cx: number, cy: number, colour: string): string {
  const points = Array.from({ length: 24 }, (_, index) => {
    const angle = (index / 24) * Math.PI * 2
    const r = index % 2 === 0 ? 54 : 42
    return `${round(cx + Math.cos(angle) * r)},${round(cy + Math.sin(angle) * r)}`
  }).join(' ')
  const tail = (side: number) =>
    `<path d="M${cx + side * 6} ${cy + 20} L${cx + side * 34} ${cy + 110} L${cx + side * 18} ${cy + 100} ` +
    `L${cx + side * 8} ${cy + 118} L${cx - side * 14} ${cy + 26} Z" fill="${colour}" stroke="#ffffff" stroke-width="2"/>`
  return (
    tail(-1) +
    tail(1) +
    `<polygon points="${points}" fill="${colour}" stroke="#ffffff" stroke-width="3"/>` +
    circle(cx, cy, 28, '#f1d58a') +
    circle(cx, cy, 18, colour)
  )
}

interface Badge {
  text: string
  colour: string
}

const BADGE = { fontSize: 18, height: 40, gap: 10, maxChars: 30, maxRows: 3, maxRowWidth: 940 }

/** Badges naming the guided choices, centred in rows under the photo. */
function badgeRows(badges: Badge[], look: Look): string {
  const sized = badges.map((badge) => {
    const text = truncate(badge.text, BADGE.maxChars)
    return { ...badge, text, width: textWidth(text, BADGE.fontSize) + 46 }
  })
  const rows: (typeof sized)[] = []
  for (const badge of sized) {
    const row = rows.at(-1)
    const used = row ? row.reduce((sum, each) => sum + each.width + BADGE.gap, 0) : 0
    if (row && used + badge.width <= BADGE.maxRowWidth) row.push(badge)
    else if (rows.length < BADGE.maxRows) rows.push([badge])
  }
  const firstTop = PHOTO.y + PHOTO.size + FRAME_WIDTH + 22
  return rows
    .map((row, rowIndex) => {
      const top = firstTop + rowIndex * (BADGE.height + 8)
      const middle = top + BADGE.height / 2
      const total = row.reduce((sum, badge) => sum + badge.width, 0) + BADGE.gap * (row.length - 1)
      let left = (CANVAS_SIZE - total) / 2
      return row
        .map((badge) => {
          const drawn =
            `<rect x="${round(left)}" y="${top}" width="${round(badge.width)}" height="${BADGE.height}" ` +
            `rx="${BADGE.height / 2}" fill="${look.paper}" opacity="0.94" stroke="${badge.colour}" stroke-width="3"/>` +
            circle(left + 20, middle, 7, badge.colour, 1, `stroke="${look.ink}" stroke-opacity="0.35"`) +
            text(badge.text, left + 34, middle, BADGE.fontSize, look.ink, 'start')
          left += badge.width + BADGE.gap
          return drawn
        })
        .join('')
    })
    .join('')
}

/** A centred text on a rounded plate in the look's paper colour; `top` is the plate's top edge. */
function label(
  content: string,
  centreX: number,
  top: number,
  fontSize: number,
  look: Look,
  font: string,
  weight: 'bold' | 'normal',
  opacity = 0.94,
): string {
  const height = Math.round(fontSize * 1.7)
  const width = textWidth(content, fontSize) + fontSize * 1.6
  return (
    `<rect x="${round(centreX - width / 2)}" y="${top}" width="${round(width)}" height="${height}" rx="${height / 2}" ` +
    `fill="${look.paper}" opacity="${opacity}" stroke="${look.accent}" stroke-width="2"/>` +
    text(content, centreX, top + height / 2, fontSize, look.ink, 'middle', font, weight)
  )
}

function text(
  content: string,
  x: number,
  middleY: number,
  fontSize: number,
  colour: string,
  anchor: 'start' | 'middle',
  font = SANS_FONT,
  weight: 'bold' | 'normal' = 'normal',
): string {
  // Baseline placed by hand: librsvg's dominant-baseline support is patchy.
  const baseline = middleY + fontSize * 0.36
  return (
    `<text x="${round(x)}" y="${round(baseline)}" font-family="${escapeXml(font)}" font-size="${fontSize}" ` +
    `font-weight="${weight}" fill="${colour}" text-anchor="${anchor}">${escapeXml(content)}</text>`
  )
}
