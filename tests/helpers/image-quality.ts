import { createRequire } from 'node:module'
import { join } from 'node:path'
import sharp from 'sharp'

/**
 * A real photo for the upscaler's tests and bench: the 128 px flower UpscalerJS ships with its
 * ESRGAN-slim package (MIT), so nothing extra is stored here; and PSNR, the usual super-resolution
 * score (higher is closer to the original).
 */

const require = createRequire(import.meta.url)

export const upscalerFixturePath = () =>
  join(require.resolve('@upscalerjs/esrgan-slim').split('/dist/')[0], 'assets', 'fixture.png')

/** Peak signal-to-noise ratio in dB between two pictures of the same size (RGB). */
export async function psnr(a: Buffer, b: Buffer): Promise<number> {
  const [x, y] = await Promise.all([a, b].map((image) => sharp(image).removeAlpha().raw().toBuffer()))
  if (x.length !== y.length) throw new Error(`psnr: sizes differ (${x.length} and ${y.length} bytes)`)
  let sum = 0
  for (let i = 0; i < x.length; i++) sum += (x[i] - y[i]) ** 2
  return 10 * Math.log10(255 ** 2 / (sum / x.length))
}

/** The photo shrunk `scale` times with Lanczos (what super-resolution is scored on), as PNG. */
export async function shrunk(photo: Buffer, scale: number) {
  const { width = 0, height = 0 } = await sharp(photo).metadata()
  return sharp(photo)
    .removeAlpha()
    .resize(Math.round(width / scale), Math.round(height / scale), { kernel: 'lanczos3' })
    .png()
    .toBuffer()
}

/** The Lanczos enlargement the model has to beat. */
export async function lanczos(image: Buffer, scale: number) {
  const { width = 0, height = 0 } = await sharp(image).metadata()
  return sharp(image)
    .removeAlpha()
    .resize(width * scale, height * scale, { kernel: 'lanczos3' })
    .png()
    .toBuffer()
}
