// The still that text-to-video animates offline: a simple illustrated scene whose sky, ground and
// decorations follow words in the prompt, a pet figure, and the prompt as a caption.
import sharp from 'sharp'
import type { VideoSize } from '#domain/generation/video-dimensions.ts'
import { escapeXml, hashText, seededRandom } from '../image/local/svg.ts'

type Extra = 'stars' | 'snow' | 'clouds' | 'rain' | 'sea'

interface SceneTheme {
  keywords: string[]
  sky: [top: string, bottom: string]
  ground: [top: string, bottom: string]
  light: { color: string; glow: string } | null
  extras: Extra[]
}

const DAY: SceneTheme = {
  keywords: [],
  sky: ['#6ec3f4', '#dff4ff'],
  ground: ['#86cf6e', '#3f8f47'],
  light: { color: '#ffd75e', glow: '#fff3b0' },
  extras: ['clouds'],
}

// First match wins, so the more specific settings come first.
const THEMES: SceneTheme[] = [
  {
    keywords: ['space', 'galaxy', 'planet', 'astronaut', 'rocket', 'cosmic'],
    sky: ['#05030f', '#2b1a52'],
    ground: ['#8d8aa0', '#4b4860'],
    light: { color: '#c9b6ff', glow: '#6d4fc2' },
    extras: ['stars'],
  },
  {
    keywords: ['night', 'moon', 'star', 'midnight', 'dark'],
    sky: ['#0b1d3a', '#3b4f86'],
    ground: ['#22374a', '#101b26'],
    light: { color: '#f4f1d6', glow: '#8fa3d9' },
    extras: ['stars'],
  },
  {
    keywords: ['sunset', 'sunrise', 'dusk', 'dawn', 'evening'],
    sky: ['#5b3f8f', '#ffae73'],
    ground: ['#7a4b5c', '#3c2434'],
    light: { color: '#ffcf6b', glow: '#ff8a5c' },
    extras: ['clouds'],
  },
  {
    keywords: ['snow', 'winter', 'ice', 'frozen', 'christmas', 'ski'],
    sky: ['#a9c4e0', '#eef4fa'],
    ground: ['#ffffff', '#d5e2ef'],
    light: null,
    extras: ['snow'],
  },
  {
    keywords: ['rain', 'storm', 'cloudy', 'puddle', 'umbrella'],
    sky: ['#5d6b7a', '#aab6c2'],
    ground: ['#5f7d5a', '#34503a'],
    light: null,
    extras: ['clouds', 'rain'],
  },
  {
    keywords: ['beach', 'ocean', 'sea', 'surf', 'wave', 'sand', 'island', 'summer'],
    sky: ['#45b8ee', '#c9efff'],
    ground: ['#f5dca6', '#dcb574'],
    light: { color: '#ffe066', glow: '#fff6c2' },
    extras: ['sea', 'clouds'],
  },
]

const FUR_COLORS: [keyword: string, color: string][] = [
  ['black', '#2b2b2e'],
  ['white', '#f4f1ea'],
  ['gr[ae]y', '#9a9ca3'],
  ['golden', '#e0a94a'],
  ['orange', '#e8893a'],
  ['ginger', '#e8893a'],
  ['brown', '#8a5a3b'],
]

const FONT = 'DejaVu Sans, Helvetica, Arial, sans-serif'
const HORIZON = 0.66
const LABEL = 'Pawtrait · offline renderer'

/** Renders the scene for `prompt` as a JPEG of `size`. */
export async function renderTextScene(prompt: string, size: VideoSize): Promise<Buffer> {
  return sharp(Buffer.from(sceneSvg(prompt, size)))
    .jpeg({ quality: 92 })
    .toBuffer()
}

function sceneSvg(prompt: string, { width: w, height: h }: VideoSize): string {
  const text = prompt.trim() || 'A pet adventure'
  const lower = text.toLowerCase()
  const theme = THEMES.find((t) => mentions(lower, t.keywords)) ?? DAY
  // Same prompt, same scene: decorations are placed by a small PRNG seeded from the text.
  const random = seededRandom(hashText(text))
  const unit = Math.min(w, h)
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">`,
    `<defs>${gradient('sky', theme.sky)}${gradient('ground', theme.ground)}</defs>`,
    `<rect width="${w}" height="${h}" fill="url(#sky)"/>`,
    theme.extras.includes('stars') ? specks(random, 80, w, h * HORIZON, unit * 0.004) : '',
    theme.light ? celestialBody(theme.light, w, h, unit) : '',
    theme.extras.includes('clouds') ? clouds(w, h, unit, random) : '',
    theme.extras.includes('sea') ? sea(w, h) : '',
    hills(w, h),
    pet(lower, w / 2, h * 0.74, unit * 0.15),
    theme.extras.includes('snow') ? specks(random, 70, w, h, unit * 0.012) : '',
    theme.extras.includes('rain') ? rain(w, h, unit, random) : '',
    caption(text, w, h, unit),
    label(w, h, unit),
    '</svg>',
  ].join('')
}

function mentions(text: string, keywords: string[]): boolean {
  return keywords.length > 0 && new RegExp(`\\b(${keywords.join('|')})`).test(text)
}

function gradient(id: string, [top, bottom]: [string, string]): string {
  return `<linearGradient id="${id}" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${top}"/><stop offset="1" stop-color="${bottom}"/></linearGradient>`
}

function celestialBody(light: { color: string; glow: string }, w: number, h: number, unit: number) {
  const [cx, cy, r] = [w * 0.78, h * 0.22, unit * 0.08]
  return `<circle cx="${cx}" cy="${cy}" r="${r * 2}" fill="${light.glow}" opacity="0.35"/><circle cx="${cx}" cy="${cy}" r="${r}" fill="${light.color}"/>`
}

/** Small scattered dots: stars in the sky, snowflakes everywhere. */
function specks(random: () => number, count: number, w: number, h: number, maxRadius: number) {
  return Array.from({ length: count }, () => {
    const r = maxRadius * (0.3 + random() * 0.7)
    return `<circle cx="${random() * w}" cy="${random() * h}" r="${r}" fill="#ffffff" opacity="${0.5 + random() * 0.5}"/>`
  }).join('')
}

function clouds(w: number, h: number, unit: number, random: () => number): string {
  return Array.from({ length: 3 }, (_, i) => {
    const [cx, cy, s] = [w * (0.15 + i * 0.3 + random() * 0.1), h * (0.2 + random() * 0.15), unit * 0.06]
    return `<g fill="#ffffff" opacity="0.85"><ellipse cx="${cx}" cy="${cy}" rx="${s * 2.2}" ry="${s}"/><ellipse cx="${cx - s}" cy="${cy - s * 0.5}" rx="${s * 1.1}" ry="${s * 0.9}"/><ellipse cx="${cx + s * 0.6}" cy="${cy - s * 0.7}" rx="${s * 1.3}" ry="${s * 1.1}"/></g>`
  }).join('')
}

function sea(w: number, h: number): string {
  const top = h * (HORIZON - 0.08)
  return `<rect x="0" y="${top}" width="${w}" height="${h - top}" fill="#2a8fd0"/><rect x="0" y="${top}" width="${w}" height="${h * 0.012}" fill="#bfe8ff" opacity="0.7"/>`
}

function hills(w: number, h: number): string {
  const y = h * HORIZON
  return `<path d="M0 ${y} Q ${w * 0.25} ${y - h * 0.05} ${w * 0.5} ${y} T ${w} ${y - h * 0.02} L ${w} ${h} L 0 ${h} Z" fill="url(#ground)"/>`
}

function rain(w: number, h: number, unit: number, random: () => number): string {
  const length = unit * 0.04
  const lines = Array.from({ length: 90 }, () => {
    const [x, y] = [random() * w, random() * h]
    return `<line x1="${x}" y1="${y}" x2="${x - length * 0.3}" y2="${y + length}"/>`
  })
  return `<g stroke="#dbe7f3" stroke-width="${unit * 0.004}" opacity="0.7">${lines.join('')}</g>`
}

/** A sitting cat or dog made of simple shapes; `baseY` is where it sits, `u` its scale. */
function pet(prompt: string, cx: number, baseY: number, u: number): string {
  const fur = FUR_COLORS.find(([word]) => new RegExp(`\\b${word}`).test(prompt))?.[1] ?? '#c98a4b'
  const isCat = /\b(cat|kitten|kitty)/.test(prompt)
  const headY = baseY - u * 1.55
  const ears = isCat
    ? [-1, 1].map(
        (side) =>
          `<polygon points="${cx + side * u * 0.5},${headY - u * 0.15} ${cx + side * u * 0.42},${headY - u * 0.85} ${cx + side * u * 0.08},${headY - u * 0.5}" fill="${fur}"/>`,
      )
    : [-1, 1].map(
        (side) =>
          `<ellipse cx="${cx + side * u * 0.52}" cy="${headY}" rx="${u * 0.17}" ry="${u * 0.4}" transform="rotate(${side * 18} ${cx + side * u * 0.52} ${headY})" fill="${shade(fur)}"/>`,
      )
  const eyes = [-1, 1].map(
    (side) =>
      `<circle cx="${cx + side * u * 0.2}" cy="${headY - u * 0.05}" r="${u * 0.075}" fill="#1d1d22"/><circle cx="${cx + side * u * 0.2 + u * 0.025}" cy="${headY - u * 0.08}" r="${u * 0.022}" fill="#ffffff"/>`,
  )
  return [
    `<ellipse cx="${cx}" cy="${baseY + u * 0.05}" rx="${u * 0.95}" ry="${u * 0.14}" fill="#000000" opacity="0.18"/>`,
    `<path d="M ${cx + u * 0.6} ${baseY - u * 0.2} q ${u * 0.7} ${u * 0.05} ${u * 0.55} ${-u * 0.8}" stroke="${fur}" stroke-width="${u * 0.18}" stroke-linecap="round" fill="none"/>`,
    `<ellipse cx="${cx}" cy="${baseY - u * 0.55}" rx="${u * 0.72}" ry="${u * 0.62}" fill="${fur}"/>`,
    `<ellipse cx="${cx}" cy="${baseY - u * 0.45}" rx="${u * 0.35}" ry="${u * 0.4}" fill="#ffffff" opacity="0.25"/>`,
    ...ears,
    `<circle cx="${cx}" cy="${headY}" r="${u * 0.55}" fill="${fur}"/>`,
    ...eyes,
    `<ellipse cx="${cx}" cy="${headY + u * 0.16}" rx="${u * 0.09}" ry="${u * 0.06}" fill="#3a2a2a"/>`,
  ].join('')
}

/** A darker tone of a #rrggbb colour, for the dog's ears. */
function shade(hex: string): string {
  const value = Number.parseInt(hex.slice(1), 16)
  const channels = [value >> 16, (value >> 8) & 0xff, value & 0xff].map((c) => Math.round(c * 0.75))
  return `rgb(${channels.join(',')})`
}

function caption(text: string, w: number, h: number, unit: number): string {
  const fontSize = unit * 0.04
  const boxWidth = w * 0.84
  const lines = wrap(text, Math.floor(boxWidth / (fontSize * 0.56)), 2)
  const lineHeight = fontSize * 1.3
  const boxHeight = lines.length * lineHeight + fontSize
  const boxY = h * 0.91 - boxHeight
  const tspans = lines
    .map(
      (line, i) =>
        `<tspan x="${w / 2}" y="${boxY + fontSize * 0.5 + lineHeight * (i + 0.8)}">${escapeXml(line)}</tspan>`,
    )
    .join('')
  return `<rect x="${(w - boxWidth) / 2}" y="${boxY}" width="${boxWidth}" height="${boxHeight}" rx="${fontSize * 0.6}" fill="#000000" opacity="0.45"/><text font-family="${FONT}" font-size="${fontSize}" fill="#ffffff" text-anchor="middle">${tspans}</text>`
}

function label(w: number, h: number, unit: number): string {
  const fontSize = unit * 0.03
  const [x, y] = [w * 0.08, h * 0.08]
  const width = fontSize * 0.55 * LABEL.length + fontSize
  return `<rect x="${x}" y="${y}" width="${width}" height="${fontSize * 1.7}" rx="${fontSize * 0.85}" fill="#000000" opacity="0.35"/><text x="${x + fontSize * 0.5}" y="${y + fontSize * 1.2}" font-family="${FONT}" font-size="${fontSize}" fill="#ffffff">${escapeXml(LABEL)}</text>`
}

/** Greedy word wrap into at most `maxLines` lines; cut text ends with "…". */
export function wrap(text: string, maxChars: number, maxLines: number): string[] {
  const lines: string[] = []
  for (const word of text.split(/\s+/)) {
    const last = lines.at(-1)
    if (last !== undefined && last.length + 1 + word.length <= maxChars) {
      lines[lines.length - 1] = `${last} ${word}`
    } else {
      lines.push(word.length > maxChars ? `${word.slice(0, maxChars - 1)}…` : word)
    }
  }
  if (lines.length <= maxLines) return lines
  const kept = lines.slice(0, maxLines)
  kept[maxLines - 1] = `${kept[maxLines - 1].slice(0, maxChars - 1).trimEnd()}…`
  return kept
}
