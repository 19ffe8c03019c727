/**
 * The bundled title fonts (issue 41, item 3), read from their npm packages' WOFF files, never from
 * the fonts a machine has installed: each font is its Latin and Latin Extended subsets, and a
 * character is drawable when one of them has a glyph for it. Lines of text become SVG path data
 * (vector outlines, opentype.js), so the title looks the same on every machine.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import opentype from 'opentype.js'
import type { TitleFont } from './title-options.ts'

/** Each font's files, and how much larger it is drawn so the three look the same size (a script's letters are small in their em). */
const FONTS: Record<TitleFont, { files: string[]; scale: number }> = {
  'playfair-display': {
    files: ['playfair-display-latin-700-normal', 'playfair-display-latin-ext-700-normal'],
    scale: 1,
  },
  'great-vibes': { files: ['great-vibes-latin-400-normal', 'great-vibes-latin-ext-400-normal'], scale: 1.4 },
  cinzel: { files: ['cinzel-latin-700-normal', 'cinzel-latin-ext-700-normal'], scale: 1 },
}

const resolve = createRequire(import.meta.url).resolve
const faces = new Map<TitleFont, opentype.Font[]>()

function facesOf(font: TitleFont): opentype.Font[] {
  let loaded = faces.get(font)
  if (!loaded) {
    loaded = FONTS[font].files.map((file) => {
      const bytes = readFileSync(resolve(`@fontsource/${font}/files/${file}.woff`))
      return opentype.parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
    })
    faces.set(font, loaded)
  }
  return loaded
}

const faceFor = (font: TitleFont, char: string) => facesOf(font).find((face) => face.charToGlyphIndex(char) > 0)

/** The characters of `text` the font has no glyph for, each once, in order of appearance. */
export function undrawableCharacters(text: string, font: TitleFont): string[] {
  const missing = [...new Set(text)].filter((char) => char.trim() !== '' && !faceFor(font, char))
  return missing
}

/** A line of text as outlines: its SVG path data from x = 0 on the baseline y = 0, and its advance width. */
export interface Outline {
  /** Each glyph's path data and where its advance starts, left to right. */
  glyphs: { d: string; x: number; advance: number }[]
  width: number
  /** Where the line sits: three quarters of the size above the baseline, a quarter below. */
  ascent: number
  descent: number
}

export function outlineOf(text: string, font: TitleFont, size: number): Outline {
  const [main] = facesOf(font)
  const drawn = size * FONTS[font].scale
  const scale = drawn / main.unitsPerEm
  const glyphs: Outline['glyphs'] = []
  let x = 0
  let previous: { face: opentype.Font; glyph: opentype.Glyph } | undefined
  for (const char of text) {
    const face = faceFor(font, char) ?? main
    const glyph = face.charToGlyph(char)
    if (previous?.face === face) x += face.getKerningValue(previous.glyph, glyph) * scale
    const advance = (glyph.advanceWidth ?? 0) * scale
    glyphs.push({ d: glyph.getPath(0, 0, drawn).toPathData(2), x, advance })
    x += advance
    previous = { face, glyph }
  }
  // The em's cap height rather than the ascender: scripts' ascenders leave room for tall swashes.
  return { glyphs, width: x, ascent: size * 0.75, descent: size * 0.25 }
}
