import { readFile } from 'node:fs/promises'
import sharp from 'sharp'
import { upscaleImage } from '#worker/upscale/upscaler.ts'
import { lanczos, psnr, shrunk, upscalerFixturePath } from '#tests/helpers/image-quality.ts'

// The model on several threads (decision 0047) gives the very picture one thread gives: a real photo
// (UpscalerJS's flower) of a size that is no multiple of the tiles, ×2 and ×4, threads 1 and 2; and
// a picture of several tiles comes out closer to its original than Lanczos's, so each tile's part
// lands where it belongs.

const photoOf = async (width: number, height: number) =>
  sharp(await readFile(upscalerFixturePath()))
    .resize(width, height, { kernel: 'lanczos3' })
    .png()
    .toBuffer()

const pixels = (png: Buffer) => sharp(png).raw().toBuffer()

test.each([
  { scale: 2 as const, width: 300, height: 180 },
  { scale: 4 as const, width: 150, height: 90 },
])('×$scale of $width×$height px: two threads give the same pixels as one', async ({ scale, width, height }) => {
  const photo = await photoOf(width, height)
  const progress: number[] = []
  const one = await upscaleImage(photo, scale, { threads: 1 })
  const two = await upscaleImage(photo, scale, { threads: 2, onProgress: (percent) => progress.push(percent) })
  expect(one).toMatchObject({ model: 'esrgan-slim', width: width * scale, height: height * scale })
  expect(two).toMatchObject({ model: 'esrgan-slim', width: width * scale, height: height * scale })
  const [a, b] = await Promise.all([pixels(one.bytes), pixels(two.bytes)])
  let maxDifference = 0
  for (let i = 0; i < a.length; i++) maxDifference = Math.max(maxDifference, Math.abs(a[i] - b[i]))
  expect(maxDifference).toBe(0)
  expect(await psnr(one.bytes, two.bytes)).toBe(Infinity)
  // Two tiles, one a thread, each reported as done.
  expect(progress).toEqual([50, 100])
})

test('×2 of a picture of four tiles beats Lanczos against the original', async () => {
  const flower = await readFile(upscalerFixturePath())
  // 512 px of real photo: the 128 px flower four times across and down; halved, 2×2 tiles of 192 px.
  const original = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#000' } })
    .composite(
      Array.from({ length: 16 }, (_, i) => ({ input: flower, left: (i % 4) * 128, top: Math.floor(i / 4) * 128 })),
    )
    .png()
    .toBuffer()
  const half = await shrunk(original, 2)
  const made = await upscaleImage(half, 2, { threads: 2 })
  expect(made).toMatchObject({ model: 'esrgan-slim', width: 512, height: 512 })
  expect(await psnr(made.bytes, original)).toBeGreaterThan(await psnr(await lanczos(half, 2), original))
})
