import { randomBytes } from 'node:crypto'
import sharp from 'sharp'
import { action as photoCheckAction } from '#app/routes/api.photo-check.ts'
import { measurePhoto } from '#domain/photo-check/photo-measures.server.ts'
import { judgeMeasures } from '#domain/photo-check/local-verdict.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { photoFile, withOwnDataDir } from '#tests/helpers/generation.ts'
import { drawnPetPhoto } from '#tests/helpers/pet-photos.ts'

// Issue 38, item 9: the contrast was sqrt(E[x²] − E[x]²), which rounds below 0 on some flat
// colours, so it was NaN, the "blank" rule never fired and a lens cap was called "too blurred".
withOwnDataDir()

const size = { width: 1024, height: 768 }
/** One flat colour, as PNG so that every pixel is exactly that colour. */
const flat = (r: number, g: number, b: number) =>
  sharp({ create: { ...size, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer()
/** `base` with every channel of every pixel moved by up to ±`spread` at random. */
function noisy(base: number, spread: number) {
  const noise = randomBytes(size.width * size.height * 3)
  const pixels = Buffer.alloc(noise.length)
  for (let i = 0; i < noise.length; i++) {
    pixels[i] = Math.max(0, Math.min(255, base + Math.round(((noise[i] / 255) * 2 - 1) * spread)))
  }
  return sharp(pixels, { raw: { ...size, channels: 3 } })
    .png()
    .toBuffer()
}

// (37, 91, 53) and (111, 17, 159) are colours whose one-pass variance came out below 0.
const flatColours: Array<[number, number, number]> = [
  [37, 91, 53],
  [111, 17, 159],
  [0, 0, 0],
  [128, 128, 128],
  [255, 255, 255],
]

describe('the photo check measures', () => {
  test('a flat colour measures 0 contrast and 0 sharpness, never NaN, and is called blank', async () => {
    for (const colour of flatColours) {
      const measures = await measurePhoto(await flat(...colour))
      expect({ colour, contrast: measures.contrast, sharpness: measures.sharpness }).toEqual({
        colour,
        contrast: 0,
        sharpness: 0,
      })
      expect(judgeMeasures(measures).refusal).toMatch(/^This photo looks blank/)
    }
  })

  test('a nearly flat photo (±1 of noise) has a small finite contrast and is called blank', async () => {
    const measures = await measurePhoto(await noisy(37, 1))
    expect(measures.contrast).toBeGreaterThan(0)
    expect(measures.contrast).toBeLessThan(4)
    expect(judgeMeasures(measures).refusal).toMatch(/^This photo looks blank/)
  })

  test('a dark photo of a dark pet measures a finite contrast and passes', async () => {
    const measures = await measurePhoto(await drawnPetPhoto({ coat: '#1c1a18', light: 0.45 }))
    expect(Number.isFinite(measures.contrast) && Number.isFinite(measures.sharpness)).toBe(true)
    expect(measures.contrast).toBeGreaterThanOrEqual(4)
    expect(judgeMeasures(measures).refusal).toBeUndefined()
  })

  test('a noisy photo measures a contrast and a sharpness well above every threshold, and passes', async () => {
    const measures = await measurePhoto(await noisy(128, 100))
    // Halving the size to 512 px averages the noise down to a standard deviation of about 17.
    expect(measures.contrast).toBeGreaterThan(12)
    expect(measures.sharpness).toBeGreaterThan(1000)
    expect(judgeMeasures(measures)).toEqual({ warnings: [] })
  })
})

test('POST /api/photo-check calls a lens-cap photo blank, not blurred', async () => {
  const { token } = await createTestUser()
  const form = new FormData()
  form.append('image', photoFile(await flat(37, 91, 53), 'cap.png', 'image/png'))
  const response = await callRoute(
    photoCheckAction,
    makeRequest('/api/photo-check', { method: 'POST', token, body: form }),
  )
  expect(response.status).toBe(200)
  expect(await response.json()).toMatchObject({ ok: false, message: expect.stringMatching(/^This photo looks blank/) })
})
