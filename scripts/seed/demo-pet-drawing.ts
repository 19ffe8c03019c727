/**
 * Cartoon dogs and cats drawn as SVG, the "pet photos" behind the demo gallery: the seed passes them
 * through the offline portrait renderer exactly as a user's photo would be. Everything is drawn on
 * an 800 px square around a head centred at (400, 330), mirrored where the face is symmetric.
 */
import { circle, gradientStop, svgDocument } from '#worker/providers/image/local/svg.ts'

const PET_CANVAS = 800

export type Accessory =
  | 'bowtie'
  | 'sunglasses'
  | 'beret'
  | 'headband'
  | 'medal'
  | 'partyHat'
  | 'crown'
  | 'scarf'
  | 'ruff'
  | 'bandana'
  | 'santaHat'
  | 'flowerCrown'
  | 'cape'
  | 'roundGlasses'

export interface PetSpec {
  species: 'dog' | 'cat'
  fur: string
  /** Muzzle, chest and paws. */
  light: string
  /** Ears (dogs), stripes (cats), eye patch. */
  dark: string
  ears?: 'floppy' | 'pointy'
  eyePatch?: boolean
  stripes?: boolean
  eyes?: string
  /** Head tilt in degrees, positive to the right. */
  tilt?: number
  tongue?: boolean
  accessories: Accessory[]
  /** The photo's backdrop, top-left to bottom-right. */
  backdrop: [string, string]
  /** The colour of scarves, bows, hats. */
  accent: string
}

const C = PET_CANVAS / 2
const INK = '#2b2222'

/** x mirrored across the vertical centre line. */
const mx = (x: number) => PET_CANVAS - x

function ellipse(cx: number, cy: number, rx: number, ry: number, fill: string, extra = ''): string {
  return `<ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}" fill="${fill}" ${extra}/>`
}

function path(d: string, fill: string, extra = ''): string {
  return `<path d="${d}" fill="${fill}" ${extra}/>`
}

function stroke(d: string, colour: string, width: number, extra = ''): string {
  return path(d, 'none', `stroke="${colour}" stroke-width="${width}" stroke-linecap="round" ${extra}`)
}

/** The same shape on both sides of the face: `draw` gets a mirroring function for x. */
function bothSides(draw: (x: (value: number) => number) => string): string {
  return draw((x) => x) + draw(mx)
}

export function drawPet(pet: PetSpec): Buffer {
  const has = (accessory: Accessory) => pet.accessories.includes(accessory)
  const head = pet.species === 'dog' ? dogHead(pet) : catHead(pet)
  const body =
    (has('cape') ? cape(pet.accent) : '') +
    (pet.species === 'cat' ? stroke('M560 760 C 700 740 720 600 650 560', pet.fur, 46) : '') +
    ellipse(C, 660, 200, 210, pet.fur) +
    ellipse(C, 620, 95, 150, pet.light) +
    ellipse(320, 775, 58, 34, pet.light) +
    ellipse(480, 775, 58, 34, pet.light)
  const neck = neckAccessories(pet)
  const headwear = headAccessories(pet)
  const tilt = pet.tilt ?? 0
  return svgDocument(
    PET_CANVAS,
    PET_CANVAS,
    backdrop(pet.backdrop) + body + neck + `<g transform="rotate(${tilt} ${C} 470)">${head}${headwear}</g>`,
  )
}

function backdrop([from, to]: [string, string]): string {
  const dots = Array.from({ length: 9 }, (_, index) =>
    circle(80 + ((index * 263) % 660), 70 + ((index * 157) % 300), 26 + (index % 3) * 14, '#ffffff', 0.18),
  )
  return (
    `<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">${gradientStop(0, from)}${gradientStop(1, to)}` +
    `</linearGradient></defs><rect width="${PET_CANVAS}" height="${PET_CANVAS}" fill="url(#bg)"/>` +
    dots.join('')
  )
}

function eyes(pet: PetSpec): string {
  return bothSides((x) => {
    const cx = x(345)
    if (pet.species === 'cat') {
      return (
        ellipse(cx, 318, 26, 31, pet.eyes ?? '#8cc63f') +
        ellipse(cx, 320, 9, 24, INK) +
        circle(cx - 8, 306, 6, '#ffffff')
      )
    }
    return circle(cx, 312, 21, INK) + circle(cx - 7, 304, 7, '#ffffff')
  })
}

function dogHead(pet: PetSpec): string {
  const ears =
    pet.ears === 'pointy'
      ? bothSides((x) => path(`M${x(268)} 268 L${x(290)} 120 L${x(372)} 208 Z`, pet.dark))
      : bothSides((x) =>
          ellipse(x(262), 330, 58, 118, pet.dark, `transform="rotate(${x(262) < C ? 18 : -18} ${x(262)} 330)"`),
        )
  const patch = pet.eyePatch ? ellipse(345, 305, 50, 54, pet.dark) : ''
  const tongue = pet.tongue ? path('M382 430 Q382 478 400 478 Q418 478 418 430 Z', '#e86a7d') : ''
  return (
    ears +
    ellipse(C, 330, 150, 140, pet.fur) +
    patch +
    ellipse(C, 410, 88, 66, pet.light) +
    tongue +
    stroke('M400 392 V 420 M400 420 Q 378 440 356 424 M400 420 Q 422 440 444 424', INK, 6) +
    ellipse(C, 380, 30, 21, INK) +
    ellipse(392, 373, 9, 5, '#ffffff', 'opacity="0.6"') +
    eyes(pet) +
    bothSides((x) => ellipse(x(298), 392, 26, 15, '#ff8fa3', 'opacity="0.35"'))
  )
}

function catHead(pet: PetSpec): string {
  const ears = bothSides(
    (x) =>
      path(`M${x(268)} 262 L${x(288)} 118 L${x(378)} 198 Z`, pet.fur) +
      path(`M${x(290)} 236 L${x(300)} 160 L${x(352)} 204 Z`, '#f6a5b5'),
  )
  const stripes = pet.stripes
    ? stroke('M400 200 V 250 M360 208 L 370 250 M440 208 L 430 250', pet.dark, 12) +
      bothSides((x) => stroke(`M${x(252)} 330 L ${x(292)} 338 M${x(256)} 362 L ${x(294)} 364`, pet.dark, 10))
    : ''
  const whiskers = bothSides((x) =>
    [392, 408, 424]
      .map((y, index) => stroke(`M${x(350)} ${y} L ${x(250)} ${y - 14 + index * 14}`, '#ffffff', 3))
      .join(''),
  )
  return (
    ears +
    ellipse(C, 335, 155, 135, pet.fur) +
    stripes +
    ellipse(381, 404, 30, 22, pet.light) +
    ellipse(419, 404, 30, 22, pet.light) +
    path('M384 380 L416 380 L400 396 Z', '#f08ca0') +
    stroke('M400 396 Q 386 416 368 404 M400 396 Q 414 416 432 404', INK, 5) +
    whiskers +
    eyes(pet)
  )
}

/** Worn at the neck (drawn over the body, under the head). */
function neckAccessories(pet: PetSpec): string {
  const a = pet.accent
  const parts: Record<string, string> = {
    bowtie: path('M400 492 L336 458 L336 530 Z', a) + path('M400 492 L464 458 L464 530 Z', a) + circle(C, 492, 18, a),
    medal:
      path('M360 470 L392 560 L408 560 L378 470 Z', '#2e86de') +
      path('M440 470 L408 560 L392 560 L422 470 Z', '#c0392b') +
      circle(C, 580, 34, '#e8b923') +
      circle(C, 580, 22, '#f7d35c'),
    scarf:
      stroke('M262 470 Q 400 540 538 470', a, 48) +
      path('M430 500 L500 500 L490 640 L440 640 Z', a) +
      stroke('M445 640 V 660 M465 640 V 662 M485 640 V 660', a, 6),
    ruff: Array.from({ length: 13 }, (_, index) => {
      const angle = Math.PI * (index / 12)
      return circle(
        C - Math.cos(angle) * 170,
        480 + Math.sin(angle) * 40,
        34,
        '#fdfbf5',
        1,
        'stroke="#d8d2c4" stroke-width="3"',
      )
    }).join(''),
    bandana:
      path('M290 462 L510 462 L400 580 Z', a) +
      [330, 400, 470, 370, 430, 400]
        .map((x, index) => circle(x, 480 + Math.floor(index / 3) * 34, 6, '#ffffff'))
        .join(''),
  }
  return pet.accessories.map((accessory) => parts[accessory] ?? '').join('')
}

/** Worn on the head (tilts with it). */
function headAccessories(pet: PetSpec): string {
  const a = pet.accent
  const parts: Record<string, string> = {
    sunglasses:
      bothSides(
        (x) => `<rect x="${x(345) - 48}" y="282" width="96" height="62" rx="24" fill="${INK}" opacity="0.92"/>`,
      ) +
      stroke('M393 300 Q 400 290 407 300', INK, 8) +
      bothSides((x) => stroke(`M${x(312)} 296 L ${x(330)} 306`, '#ffffff', 5, 'opacity="0.5"')),
    roundGlasses:
      bothSides(
        (x) =>
          `<circle cx="${x(345)}" cy="312" r="40" fill="#ffffff" fill-opacity="0.15" stroke="${a}" stroke-width="8"/>`,
      ) + stroke('M385 308 Q 400 296 415 308', a, 8),
    beret: ellipse(370, 200, 118, 42, a, 'transform="rotate(-12 370 200)"') + circle(372, 156, 12, a),
    headband: stroke('M262 262 Q 400 196 538 262', a, 28) + stroke('M262 262 Q 400 196 538 262', '#ffffff', 6),
    partyHat:
      path('M400 40 L336 214 L464 214 Z', a) +
      stroke('M372 110 L 428 130 M356 160 L 446 186', '#ffffff', 12) +
      circle(C, 40, 22, '#f9c74f'),
    crown:
      path(
        'M318 215 L318 140 L354 180 L400 120 L446 180 L482 140 L482 215 Z',
        '#e8b923',
        'stroke="#b8860b" stroke-width="5"',
      ) +
      circle(C, 188, 13, '#c0392b') +
      circle(352, 198, 9, '#2e86de') +
      circle(448, 198, 9, '#2e86de'),
    santaHat:
      path('M300 222 Q 360 60 470 70 Q 560 90 580 200 L 500 210 Z', '#d62828') +
      ellipse(C, 222, 130, 30, '#ffffff') +
      circle(585, 205, 26, '#ffffff'),
    flowerCrown: [290, 335, 380, 420, 465, 510]
      .map((x, index) => {
        const y = 226 - Math.sin((index / 5) * Math.PI) * 40
        const petal = ['#f28db2', '#f6bd60', '#cdb4db'][index % 3]
        const petals = [-1, 1].map((side) => circle(x + side * 14, y, 15, petal) + circle(x, y + side * 14, 15, petal))
        return petals.join('') + circle(x, y, 10, '#f9c74f')
      })
      .join(''),
  }
  return pet.accessories.map((accessory) => parts[accessory] ?? '').join('')
}

function cape(colour: string): string {
  return path('M250 470 Q 400 430 550 470 L 640 800 L 160 800 Z', colour) + circle(C, 478, 20, '#e8b923')
}
