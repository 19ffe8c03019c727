// `npm run bench -- upscale`: "Make it bigger" (decisions 0036, 0047) as the worker runs it, on
// UPSCALE_THREADS threads (the machine's cores by default): seconds, CPU seconds (every thread of
// the process) and the process's RSS before and at its peak for ×2 and ×4 of a 1024 px picture,
// with the 1-minute load average before each (the machine may be shared), and the quality against
// Lanczos: a real photo halved (quartered), enlarged back both ways, PSNR against the original.
import { readFile } from 'node:fs/promises'
import os from 'node:os'
import sharp from 'sharp'
import { parseWorkerEnv } from '#worker/env.ts'
import { type UpscaleOptions, upscaleImage } from '#worker/upscale/upscaler.ts'
import { lanczos, psnr, shrunk, upscalerFixturePath } from '#tests/helpers/image-quality.ts'

async function timed(image: Buffer, scale: 2 | 4, options: UpscaleOptions) {
  const load = os.loadavg()[0]
  const rssBefore = process.memoryUsage().rss
  let peak = rssBefore
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50)
  const started = performance.now()
  const cpu = process.cpuUsage()
  try {
    const made = await upscaleImage(image, scale, options)
    if (made.model !== 'esrgan-slim') throw new Error(`the model did not run (${made.model})`)
    const { user, system } = process.cpuUsage(cpu)
    return {
      seconds: (performance.now() - started) / 1000,
      cpuSeconds: (user + system) / 1e6,
      peakMb: Math.max(peak, process.memoryUsage().rss) / 1e6,
      rssBeforeMb: rssBefore / 1e6,
      load,
    }
  } finally {
    clearInterval(sampler)
  }
}

export async function benchUpscale(): Promise<Record<string, number | string>> {
  const photo = await readFile(upscalerFixturePath())
  // A 1024 px picture made from the photo: the model's cost depends on the size, not on the content.
  const big = await sharp(photo).resize(1024, 1024, { kernel: 'lanczos3' }).png().toBuffer()
  const options = { threads: parseWorkerEnv().UPSCALE_THREADS }
  const figures: Record<string, number | string> = { threads: options.threads }
  for (const scale of [2, 4] as const) {
    const run = await timed(big, scale, options)
    figures[`x${scale} load average before`] = Number(run.load.toFixed(2))
    figures[`x${scale} of 1024 px (s)`] = Number(run.seconds.toFixed(1))
    figures[`x${scale} CPU (s)`] = Number(run.cpuSeconds.toFixed(1))
    figures[`x${scale} RSS before (MB)`] = Math.round(run.rssBeforeMb)
    figures[`x${scale} peak RSS (MB)`] = Math.round(run.peakMb)
  }
  for (const scale of [2, 4] as const) {
    const small = await shrunk(photo, scale)
    const model = (await upscaleImage(small, scale, options)).bytes
    figures[`x${scale} PSNR model (dB)`] = Number((await psnr(model, photo)).toFixed(2))
    figures[`x${scale} PSNR Lanczos (dB)`] = Number((await psnr(await lanczos(small, scale), photo)).toFixed(2))
  }
  return figures
}
