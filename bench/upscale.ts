// `npm run bench -- upscale`: "Make it bigger" (decision 0036) as the worker runs it: seconds and
// the process's peak RSS for ×2 and ×4 of a 1024 px picture, and the quality against Lanczos: a real
// photo halved (quartered), enlarged back both ways, PSNR against the original.
import { readFile } from 'node:fs/promises'
import sharp from 'sharp'
import { upscaleImage } from '#worker/upscale/upscaler.ts'
import { lanczos, psnr, shrunk, upscalerFixturePath } from '#tests/helpers/image-quality.ts'

async function timed(image: Buffer, scale: 2 | 4) {
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50)
  const started = performance.now()
  try {
    const made = await upscaleImage(image, scale)
    if (made.model !== 'esrgan-slim') throw new Error(`the model did not run (${made.model})`)
    return { seconds: (performance.now() - started) / 1000, peakMb: Math.max(peak, process.memoryUsage().rss) / 1e6 }
  } finally {
    clearInterval(sampler)
  }
}

export async function benchUpscale(): Promise<Record<string, number | string>> {
  const photo = await readFile(upscalerFixturePath())
  // A 1024 px picture made from the photo: the model's cost depends on the size, not on the content.
  const big = await sharp(photo).resize(1024, 1024, { kernel: 'lanczos3' }).png().toBuffer()
  const x2 = await timed(big, 2)
  const x4 = await timed(big, 4)
  const figures: Record<string, number | string> = {
    'x2 of 1024 px (s)': Number(x2.seconds.toFixed(1)),
    'x2 peak RSS (MB)': Math.round(x2.peakMb),
    'x4 of 1024 px (s)': Number(x4.seconds.toFixed(1)),
    'x4 peak RSS (MB)': Math.round(x4.peakMb),
  }
  for (const scale of [2, 4] as const) {
    const small = await shrunk(photo, scale)
    const model = (await upscaleImage(small, scale)).bytes
    figures[`x${scale} PSNR model (dB)`] = Number((await psnr(model, photo)).toFixed(2))
    figures[`x${scale} PSNR Lanczos (dB)`] = Number((await psnr(await lanczos(small, scale), photo)).toFixed(2))
  }
  return figures
}
