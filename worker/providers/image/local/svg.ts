/** Small, deterministic helpers for the offline renderer's SVG drawing. */

export const CANVAS_SIZE = 1024

// DejaVu first: it is what a slim Linux image usually has; librsvg falls back through the list.
export const SANS_FONT = "'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif"
export const SERIF_FONT = "'DejaVu Serif', Georgia, 'Times New Roman', serif"

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

export function svgDocument(width: number, height: number, body: string): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>`,
  )
}

/** A vertical two-colour gradient filling the canvas. */
export function gradientFill(id: string, top: string, bottom: string): string {
  return (
    `<defs><linearGradient id="${id}" x1="0" y1="0" x2="0" y2="1">` +
    `${gradientStop(0, top)}${gradientStop(1, bottom)}</linearGradient></defs>` +
    `<rect width="${CANVAS_SIZE}" height="${CANVAS_SIZE}" fill="url(#${id})"/>`
  )
}

export function gradientStop(offset: number, colour: string, opacity = 1): string {
  return `<stop offset="${offset}" stop-color="${colour}" stop-opacity="${opacity}"/>`
}

export function circle(cx: number, cy: number, r: number, fill: string, opacity = 1, attributes = ''): string {
  return `<circle cx="${round(cx)}" cy="${round(cy)}" r="${round(r)}" fill="${fill}" opacity="${round(opacity)}" ${attributes}/>`
}

export function rect(x: number, y: number, width: number, height: number, fill: string, opacity = 1): string {
  return (
    `<rect x="${round(x)}" y="${round(y)}" width="${round(width)}" height="${round(height)}" ` +
    `fill="${fill}" opacity="${round(opacity)}"/>`
  )
}

/** Two decimals are plenty for pixels and keep the SVG short. */
export function round(value: number): number {
  return Math.round(value * 100) / 100
}

/** FNV-1a: a stable 32-bit hash, so the same words always give the same picture. */
export function hashText(text: string): number {
  let hash = 0x811c9dc5
  for (const char of text) {
    hash ^= char.codePointAt(0) ?? 0
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/** Mulberry32: a tiny seeded generator of numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function hslToHex(hue: number, saturation: number, lightness: number): string {
  const s = saturation / 100
  const l = lightness / 100
  const a = s * Math.min(l, 1 - l)
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12
    const value = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))
    return Math.round(value * 255)
      .toString(16)
      .padStart(2, '0')
  }
  return `#${channel(0)}${channel(8)}${channel(4)}`
}

const COLOUR_WORDS = new Map(
  Object.entries({
    red: '#c0392b',
    scarlet: '#d62828',
    crimson: '#a4161a',
    pink: '#e88aa8',
    rose: '#e07a93',
    orange: '#e67e22',
    yellow: '#f1c40f',
    gold: '#d4af37',
    golden: '#d4af37',
    green: '#2e9e5b',
    olive: '#708238',
    teal: '#1a8a8a',
    turquoise: '#2ec4b6',
    blue: '#2e86de',
    denim: '#3b5b92',
    navy: '#1f2a44',
    purple: '#8e44ad',
    violet: '#7b4fb3',
    lavender: '#b69fd8',
    brown: '#8b5a2b',
    tan: '#c49a6c',
    beige: '#d9c7a7',
    black: '#222222',
    white: '#f4f4f4',
    grey: '#8a8a8a',
    gray: '#8a8a8a',
    silver: '#b8bcc2',
  }),
)

/** The colour named in a description ("red scarf"), else a stable colour picked from its words. */
export function colourFor(text: string): string {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? []
  const named = words.map((word) => COLOUR_WORDS.get(word)).find((colour) => colour !== undefined)
  return named ?? hslToHex(hashText(text) % 360, 60, 48)
}

/** Rough text width for layout: the renderer has no font metrics, 0.6 em suits DejaVu Sans. */
export function textWidth(text: string, fontSize: number): number {
  return [...text].length * fontSize * 0.6
}

export function truncate(text: string, maxChars: number): string {
  const chars = [...text]
  return chars.length > maxChars ? `${chars.slice(0, maxChars - 1).join('')}…` : text
}
