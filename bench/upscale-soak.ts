// `npm run bench -- upscale-soak`: the threaded upscaler (decision 0047) many times in a row, to show
// that no run hangs: UPSCALE_SOAK_RUNS (default 30) ×2 enlargements of a 512 px picture (nine tiles
// for the threads to share), each bounded by the pool's time bound per tile, so a lost answer shows
// as a failed run rather than a bench that never ends.
import { readFile } from 'node:fs/promises'
import sharp from 'sharp'
import { parseWorkerEnv } from '#worker/env.ts'
import { upscaleImage } from '#worker/upscale/upscaler.ts'
import { upscalerFixturePath } from '#tests/helpers/image-quality.ts'

export async function benchUpscaleSoak(): Promise<Record<string, number | string>> {
  const runs = Number(process.env.UPSCALE_SOAK_RUNS ?? 30)
  const threads = parseWorkerEnv().UPSCALE_THREADS
  const picture = await sharp(await readFile(upscalerFixturePath()))
    .resize(512, 512, { kernel: 'lanczos3' })
    .png()
    .toBuffer()
  const seconds: number[] = []
  const failures: string[] = []
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    try {
      const made = await upscaleImage(picture, 2, { threads })
      if (made.model !== 'esrgan-slim') throw new Error(`the model did not run (${made.model})`)
      seconds.push((performance.now() - started) / 1000)
    } catch (error) {
      failures.push(String(error))
    }
  }
  for (const failure of new Set(failures)) console.log(`[bench] upscale-soak: ${failure}`)
  seconds.sort((a, b) => a - b)
  return {
    threads,
    runs,
    finished: seconds.length,
    failed: failures.length,
    'median (s)': Number((seconds[Math.floor(seconds.length / 2)] ?? NaN).toFixed(1)),
    'slowest (s)': Number((seconds.at(-1) ?? NaN).toFixed(1)),
  }
}
