// `npm run bench -- title`: a name set on a 4096 px version (issue 41, item 7; target under 300 ms),
// as the worker and PUT …/title do it (domain/titles/title-render.server.ts): decode, the plaque's
// outlines composited inside the print-safe area, the JPEG encode. On a real photo enlarged to
// 4096 px PNG (what Gemini's 4K answers look like) in each style, and on the offline renderer's HD;
// beside the same decode and encode without a title, which is most of the time.
import { readFile } from 'node:fs/promises'
import sharp from 'sharp'
import { setTitle } from '#domain/titles/title-render.server.ts'
import type { TitleStyle, VersionTitle } from '#domain/titles/title-options.ts'
import { createLocalImageProvider } from '#worker/providers/image/local.ts'
import { upscalerFixturePath } from '#tests/helpers/image-quality.ts'
import { percentile, round } from './lib.ts'

const RUNS = 7

async function timed(work: () => Promise<unknown>) {
  await work() // the fonts load once a process
  const times: number[] = []
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now()
    await work()
    times.push(performance.now() - started)
  }
  return times.sort((a, b) => a - b)
}

const timings = (image: Buffer, title: VersionTitle) => timed(() => setTitle(image, title))

export async function benchTitle(): Promise<Record<string, number | string>> {
  const photo = await sharp(await readFile(upscalerFixturePath()))
    .resize(4096, 4096, { fit: 'cover', kernel: 'lanczos3' })
    .png()
    .toBuffer()
  const rendered = await createLocalImageProvider().generate(
    {
      images: [{ bytes: await readFile(upscalerFixturePath()), mimeType: 'image/png' }],
      prompt: '',
      style: 'general',
      guided: null,
      quality: 'hd',
    },
    { signal: new AbortController().signal, onProgress: () => {} },
  )
  // What the same decode and encode cost without a title: what the title itself adds is the difference.
  const bare = await timed(() =>
    sharp(photo).jpeg({ quality: 92, optimiseCoding: false }).withMetadata({ density: 300 }).toBuffer(),
  )
  const figures: Record<string, number | string> = {
    '4096 px photo, no title (decode + encode): median (ms)': round(percentile(bare, 50), 0),
  }
  for (const style of ['band', 'arch', 'plaque'] as TitleStyle[]) {
    const times = await timings(photo, { text: 'Biscuit & Pepper', style, font: 'playfair-display' })
    figures[`4096 px photo, ${style}: median (ms)`] = round(percentile(times, 50), 0)
    figures[`4096 px photo, ${style}: p95 (ms)`] = round(percentile(times, 95), 0)
  }
  const offline = await timings(rendered.images[0].bytes, {
    text: 'Biscuit & Pepper',
    style: 'band',
    font: 'great-vibes',
  })
  figures['4096 px offline HD, band: median (ms)'] = round(percentile(offline, 50), 0)
  figures['under 300 ms (photo, band median)'] =
    (figures['4096 px photo, band: median (ms)'] as number) < 300 ? 'yes' : 'no'
  return figures
}
