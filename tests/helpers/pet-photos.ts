/**
 * Real-looking pet photos for tests and benchmarks, drawn deterministically: a pet's head and body
 * with fur-like texture (fine strands plus grain), eyes with highlights, on a soft background. They
 * pass the photo check (domain/photo-check/) as phone photos do; options make the hard cases the
 * check's thresholds were chosen on (a dark coat, soft focus, blank, tiny).
 */
import sharp from 'sharp'

export interface DrawnPetOptions {
  /** The coat colour, '#rrggbb'; photos of different coats have different bytes. */
  coat?: string
  /** Width; the height is 3/4 of it (a landscape phone photo). */
  width?: number
  /** Gaussian blur sigma in pixels of the full image (soft focus / camera shake). */
  blur?: number
  /** 0..1: how strong the fur texture is (a smooth short coat is low). */
  fur?: number
  /** Overall brightness factor (a dim room is below 1). */
  light?: number
  format?: 'jpeg' | 'png'
}

const drawn = new Map<string, Promise<Buffer>>()

/** Drawn once per set of options in a process (drawing a 1024 px photo takes ~50 ms). */
export function drawnPetPhoto(options: DrawnPetOptions = {}): Promise<Buffer> {
  const key = JSON.stringify(options)
  let photo = drawn.get(key)
  if (!photo) {
    photo = draw(options)
    drawn.set(key, photo)
  }
  return photo
}

async function draw(options: DrawnPetOptions): Promise<Buffer> {
  const { coat = '#c08040', width = 1024, blur = 0, fur = 1, light = 1, format = 'jpeg' } = options
  const height = Math.round((width * 3) / 4)
  const [cr, cg, cb] = [1, 3, 5].map((at) => parseInt(coat.slice(at, at + 2), 16))
  const pixels = Buffer.alloc(width * height * 3)
  let seed = 0x2f6b ^ (cr << 16) ^ (cg << 8) ^ cb
  const random = () => {
    // mulberry32: the same photo every run.
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const s = width / 1000
  const head = { x: 520 * s, y: 330 * s, rx: 190 * s, ry: 170 * s }
  const body = { x: 480 * s, y: 640 * s, rx: 330 * s, ry: 230 * s }
  const inside = (e: typeof head, x: number, y: number) => ((x - e.x) / e.rx) ** 2 + ((y - e.y) / e.ry) ** 2 <= 1
  const eyes = [
    [455 * s, 300 * s],
    [585 * s, 300 * s],
  ]
  const eyeR = 24 * s
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3
      let r: number, g: number, b: number
      const ear =
        (Math.abs(x - 390 * s) < 45 * s - (170 * s - y) * 0.4 && y > 90 * s && y < 220 * s) ||
        (Math.abs(x - 650 * s) < 45 * s - (170 * s - y) * 0.4 && y > 90 * s && y < 220 * s)
      if (inside(head, x, y) || inside(body, x, y) || ear) {
        // Fur: strands that run down and out from the middle, with grain.
        const strand = Math.sin(((x - head.x) * 0.35) / s + (y * 0.08) / s + random() * 1.2)
        const shade = 0.82 + fur * (0.16 * strand + 0.2 * (random() - 0.5))
        r = cr * shade
        g = cg * shade
        b = cb * shade
        const nose = ((x - 520 * s) / (40 * s)) ** 2 + ((y - 385 * s) / (26 * s)) ** 2 <= 1
        if (nose) [r, g, b] = [40, 30, 28]
        for (const [ex, ey] of eyes) {
          const d = Math.hypot(x - ex, y - ey)
          if (d <= eyeR) [r, g, b] = Math.hypot(x - ex + 8 * s, y - ey + 8 * s) < 7 * s ? [235, 235, 230] : [25, 20, 18]
        }
      } else {
        // A wall and a floor, lit from the left, with a little sensor noise.
        const wall = y < height * 0.72
        const falloff = 1 - (x / width) * 0.35
        r = (wall ? 150 : 120) * falloff + (random() - 0.5) * 6
        g = (wall ? 170 : 100) * falloff + (random() - 0.5) * 6
        b = (wall ? 190 : 80) * falloff + (random() - 0.5) * 6
      }
      pixels[at] = clamp(r * light)
      pixels[at + 1] = clamp(g * light)
      pixels[at + 2] = clamp(b * light)
    }
  }
  let image = sharp(pixels, { raw: { width, height, channels: 3 } })
  if (blur > 0) image = image.blur(blur)
  return format === 'png' ? image.png().toBuffer() : image.jpeg({ quality: 88 }).toBuffer()
}

const clamp = (value: number) => Math.max(0, Math.min(255, Math.round(value)))

/** A photo of one flat colour (a lens cap, a blank screen). */
export function blankPhoto(colour = '#808080', width = 1024) {
  return sharp({ create: { width, height: Math.round((width * 3) / 4), channels: 3, background: colour } })
    .jpeg()
    .toBuffer()
}
