/**
 * Backgrounds for the offline renderer, drawn as SVG on the 1024 px canvas. A description that names
 * a known kind of place ("a sunny beach") gets that scene; any other description gets a colour wash
 * picked from its words, so different wishes still give different pictures.
 */
import { CANVAS_SIZE as S, circle, gradientFill, hashText, hslToHex, rect, seededRandom } from './svg.ts'

type Random = () => number

interface Scene {
  keywords: string[]
  draw(random: Random): string
}

const SCENES: Scene[] = [
  { keywords: ['beach', 'sea', 'seaside', 'ocean', 'coast', 'sand', 'island', 'tropical', 'surf'], draw: beach },
  { keywords: ['sunset', 'sunrise', 'dusk', 'desert', 'dune'], draw: sunset },
  { keywords: ['night', 'space', 'star', 'starry', 'galaxy', 'moon', 'cosmic', 'universe'], draw: night },
  { keywords: ['snow', 'snowy', 'winter', 'christmas', 'ice', 'mountain', 'ski', 'alps'], draw: snow },
  { keywords: ['city', 'street', 'urban', 'downtown', 'skyline', 'paris', 'london', 'tokyo', 'new york'], draw: city },
  { keywords: ['flower', 'blossom', 'spring', 'floral', 'bloom', 'tulip', 'petal'], draw: flowers },
  {
    keywords: ['forest', 'wood', 'woodland', 'jungle', 'tree', 'park', 'garden', 'meadow', 'grass', 'field'],
    draw: forest,
  },
]

/**
 * The known scene named first in the text ("city at night" is a city), matching whole words
 * ("trees" counts, "street" does not), or null.
 */
export function keywordScene(text: string): string | null {
  const lower = text.toLowerCase()
  let first: { scene: Scene; at: number } | null = null
  for (const scene of SCENES) {
    for (const keyword of scene.keywords) {
      const at = lower.search(new RegExp(`\\b${keyword}(s|es)?\\b`))
      if (at >= 0 && (first === null || at < first.at)) first = { scene, at }
    }
  }
  return first ? first.scene.draw(seededRandom(hashText(lower))) : null
}

/** A wash in colours chosen from the words, with soft light spots. */
export function tintedScene(text: string): string {
  const hue = hashText(text.toLowerCase()) % 360
  return bokeh(hslToHex(hue, 55, 72), hslToHex((hue + 35) % 360, 50, 42), seededRandom(hashText(text)))
}

/** The style's own backdrop, used when nothing was asked for. */
export function plainScene(top: string, bottom: string): string {
  return bokeh(top, bottom, seededRandom(hashText(top + bottom)))
}

function bokeh(top: string, bottom: string, random: Random): string {
  const spots = repeat(14, () =>
    circle(random() * S, random() * S, 30 + random() * 110, '#ffffff', 0.06 + random() * 0.14),
  )
  return gradientFill('sky', top, bottom) + spots.join('')
}

function beach(random: Random): string {
  const waves = repeat(4, (row) => {
    const y = 640 + row * 34
    return `<path d="${wavePath(y, 14, 90 + random() * 40)}" stroke="#e6f6ff" stroke-width="5" fill="none" opacity="0.7"/>`
  })
  return (
    gradientFill('sky', '#6fc0ee', '#d9f1fb') +
    circle(840, 170, 74, '#ffe28a') +
    rect(0, 600, S, 200, '#2a86bf') +
    waves.join('') +
    `<path d="M0 790 Q 256 750 512 785 T 1024 770 V ${S} H 0 Z" fill="#ecd3a0"/>`
  )
}

function sunset(random: Random): string {
  const birds = repeat(5, () => {
    const x = 120 + random() * 780
    const y = 120 + random() * 220
    return `<path d="M${x} ${y} q 14 -12 28 0 q 14 -12 28 0" stroke="#3b1f4a" stroke-width="4" fill="none"/>`
  })
  return (
    gradientFill('sky', '#5b2a86', '#ff8c42') +
    circle(512, 720, 190, '#ffd166', 0.95) +
    `<path d="M0 760 Q 300 680 620 770 T 1024 740 V ${S} H 0 Z" fill="#6b2d5c"/>` +
    `<path d="M0 850 Q 380 780 700 870 T 1024 860 V ${S} H 0 Z" fill="#3b1f4a"/>` +
    birds.join('')
  )
}

function night(random: Random): string {
  const stars = repeat(110, () =>
    circle(random() * S, random() * S, 1 + random() * 2.5, '#ffffff', 0.4 + random() * 0.6),
  )
  return (
    gradientFill('sky', '#0b1033', '#2b2f6e') +
    stars.join('') +
    // A crescent: the full moon with a smaller disc masked out of it.
    '<defs><mask id="crescent"><rect width="1024" height="1024" fill="#ffffff"/>' +
    `${circle(858, 150, 58, '#000000')}</mask></defs>` +
    `<g mask="url(#crescent)">${circle(830, 170, 64, '#f6f3cf')}</g>`
  )
}

function snow(random: Random): string {
  const flakes = repeat(90, () =>
    circle(random() * S, random() * S, 2 + random() * 5, '#ffffff', 0.55 + random() * 0.45),
  )
  return (
    gradientFill('sky', '#bcd9f0', '#f7fbff') +
    '<path d="M-40 800 L 230 420 L 470 800 Z" fill="#8fa9c0"/>' +
    '<path d="M160 420 L 230 420 L 290 505 L 230 480 L 180 510 Z" fill="#ffffff"/>' +
    '<path d="M380 820 L 700 360 L 1064 820 Z" fill="#7b97b0"/>' +
    '<path d="M640 445 L 700 360 L 760 445 L 700 420 Z" fill="#ffffff"/>' +
    rect(0, 800, S, S - 800, '#f2f7fb') +
    flakes.join('')
  )
}

function city(random: Random): string {
  const buildings: string[] = []
  for (let x = 0; x < S;) {
    const width = 70 + random() * 70
    const height = 220 + random() * 300
    const top = S - height
    buildings.push(rect(x, top, width - 6, height, random() > 0.5 ? '#3d4663' : '#4b5576'))
    for (let wy = top + 18; wy < S - 30; wy += 36) {
      for (let wx = x + 12; wx < x + width - 24; wx += 24) {
        if (random() > 0.45) buildings.push(rect(wx, wy, 10, 16, '#ffd97a', 0.85))
      }
    }
    x += width
  }
  return gradientFill('sky', '#f6c49a', '#8fa6cf') + buildings.join('')
}

function flowers(random: Random): string {
  const colours = ['#f28db2', '#f6bd60', '#cdb4db', '#ff8fa3', '#ffffff']
  const blooms = repeat(28, () => {
    const x = random() * S
    const y = 560 + random() * 460
    const r = 14 + random() * 16
    const colour = colours[Math.floor(random() * colours.length)]
    const petals = repeat(5, (index) => {
      const angle = (index / 5) * Math.PI * 2
      return circle(x + Math.cos(angle) * r, y + Math.sin(angle) * r, r * 0.75, colour)
    })
    return petals.join('') + circle(x, y, r * 0.55, '#f9c74f')
  })
  return (
    gradientFill('sky', '#fde2ec', '#dff0d0') +
    `<path d="M0 620 Q 512 540 1024 620 V ${S} H 0 Z" fill="#a7d38c"/>` +
    blooms.join('')
  )
}

function forest(random: Random): string {
  const greens = ['#2d6a4f', '#40916c', '#1b4332', '#52b788']
  const trees = repeat(16, (index) => {
    const x = index * 68 + random() * 30 - 20
    const height = 200 + random() * 180
    const base = S - random() * 60
    const colour = greens[Math.floor(random() * greens.length)]
    return (
      rect(x + 26, base - 40, 12, 40, '#6b4226') +
      `<path d="M${x} ${base - 30} L ${x + 32} ${base - height} L ${x + 64} ${base - 30} Z" fill="${colour}"/>`
    )
  })
  return (
    gradientFill('sky', '#bfe3c8', '#eef7e6') +
    '<ellipse cx="250" cy="820" rx="520" ry="200" fill="#95c68a"/>' +
    '<ellipse cx="820" cy="860" rx="480" ry="190" fill="#7fb56f"/>' +
    trees.join('')
  )
}

function wavePath(y: number, amplitude: number, wavelength: number): string {
  let d = `M0 ${y}`
  for (let x = 0; x < S; x += wavelength) {
    d += ` q ${wavelength / 4} ${-amplitude} ${wavelength / 2} 0 t ${wavelength / 2} 0`
  }
  return d
}

function repeat(count: number, make: (index: number) => string): string[] {
  return Array.from({ length: count }, (_, index) => make(index))
}
