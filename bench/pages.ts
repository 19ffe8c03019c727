import { gzipSync } from 'node:zlib'
import type { DB } from '#platform/db.server.ts'
import { percentile, round, startProcess } from './lib.ts'

/** 50 gallery templates, as rows (the page renders from rows; the image bytes are not fetched). */
async function seedTemplates(db: DB, count: number) {
  await db.deleteFrom('templates').execute()
  const rows = Array.from({ length: count }, (_, index) => ({
    name: `Template ${index + 1}`,
    style: ['portrait', 'fashion', 'travel', 'oil_painting'][index % 4],
    prompt: `A portrait of a pet, variant ${index}`,
    template_prompt: `Template prompt ${index}`,
    other_params: {},
    image_key: `inspiration/2026/11/${index.toString(16).padStart(64, '0')}.png`,
    thumbnail_key: `inspiration/2026/11/${(index + 1000).toString(16).padStart(64, '0')}.webp`,
    display_key: `inspiration/2026/11/${(index + 2000).toString(16).padStart(64, '0')}.webp`,
    width: 1024,
    height: 1024 + (index % 3) * 128,
  }))
  await db.insertInto('templates').values(rows).execute()
}

/** Issue 9: JavaScript shipped on the first visit to / (gzip) and server render time of / with 50 templates. */
export async function benchPages({ db, url }: { db: DB; url: string }) {
  await seedTemplates(db, 50)
  const web = await startProcess('server/index.ts', { DATABASE_URL: url }, 'is running at')
  try {
    const html = await (await fetch(`${web.url}/`)).text()
    // Every bundle the page names: its module script's imports and the preloads the page inserts
    // after its first paint (app/document/scripts-after-paint.tsx keeps them in attributes).
    const scripts = new Set(html.match(/\/build\/[\w./-]+\.js/g))
    let gzipBytes = 0
    for (const script of scripts) {
      const body = Buffer.from(await (await fetch(`${web.url}${script}`)).arrayBuffer())
      gzipBytes += gzipSync(body, { level: 9 }).length
    }

    for (let i = 0; i < 20; i++) await fetch(`${web.url}/`).then((r) => r.arrayBuffer()) // warm up
    const timings: number[] = []
    for (let i = 0; i < 200; i++) {
      const started = performance.now()
      await fetch(`${web.url}/`).then((r) => r.arrayBuffer())
      timings.push(performance.now() - started)
    }
    timings.sort((a, b) => a - b)
    return {
      'JS on first visit to / (KB gzip, target < 150)': round(gzipBytes / 1024),
      'JS files on /': scripts.size,
      'GET / with 50 templates p50 (ms, target < 50)': round(percentile(timings, 50), 2),
      'GET / with 50 templates p99 (ms)': round(percentile(timings, 99), 2),
    }
  } finally {
    await web.stop()
  }
}
