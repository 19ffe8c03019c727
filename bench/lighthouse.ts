import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import * as chromeLauncher from 'chrome-launcher'
import lighthouse from 'lighthouse'
import sharp from 'sharp'
import { createTemplate } from '#domain/gallery/templates.server.ts'
import type { DB } from '#platform/db.server.ts'
import { createLocalStorage, mediaKey } from '#platform/storage.server.ts'
import { noisePng } from '#tests/helpers/noise-pictures.ts'
import { ensureAdmin } from '../scripts/seed/defaults.ts'
import { withDataDir } from './generation.ts'
import { round, startProcess } from './lib.ts'

/** Issue 22: Lighthouse's default (mobile, simulated slow 4G) run of each page, the median of RUNS (3; LIGHTHOUSE_RUNS for a quick look). */
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3)
const GUEST_PAGES = ['/', '/login', '/register', '/contact']
const SIGNED_IN_PAGES = ['/generate', '/history', '/purchase-credits', '/payment-review']
const admin = { email: 'bench-admin@pawtrait.test', password: 'bench-admin-password' }
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const

/** 50 templates through the real upload path (original + WebP renditions in storage), in four styles and three shapes. */
async function seedTemplates(db: DB, dataDir: string, count: number) {
  const storage = createLocalStorage(path.join(dataDir, 'media'))
  const styles = ['portrait', 'fashion', 'travel', 'oil_painting']
  for (let index = 0; index < count; index++) {
    const height = 1024 + (index % 3) * 128
    // Blurred noise on a colour: compresses about as a photo does, unlike a flat fill.
    const noise = await noisePng({ width: 1024, height, sigma: 60, blur: 6 })
    const image = await sharp({
      create: { width: 1024, height, channels: 3, background: { r: (index * 47) % 256, g: 140, b: 90 } },
    })
      .composite([{ input: noise, blend: 'overlay' }])
      .jpeg({ quality: 85 })
      .toBuffer()
    await createTemplate(db, storage, {
      image,
      style: styles[index % styles.length],
      name: `Template ${index + 1}`,
      prompt: `A portrait of a pet, variant ${index}`,
      templatePrompt: `Template prompt ${index}`,
      otherParams: {},
      createdBy: null,
    })
  }
}

/** A finished portrait of the admin's, stored as the worker stores one, to share (issue 32). */
async function seedFinishedPortrait(db: DB, dataDir: string, userId: string) {
  const storage = createLocalStorage(path.join(dataDir, 'media'))
  const bytes = await noisePng({ width: 1024, sigma: 60, blur: 4 })
  const key = mediaKey('tasks/results', bytes, 'png')
  await storage.put(key, bytes, 'image/png')
  const task = await db
    .insertInto('generation_tasks')
    .values({
      user_id: userId,
      kind: 'image',
      status: 'completed',
      params: { mode: 'guide', style: 'general', guided: {}, prompt: '', templatePrompt: '', templateId: null },
      result_key: key,
      credit_cost: 2,
      provider: 'local',
      finished_at: new Date(),
      expires_at: new Date(Date.now() + 30 * 86_400_000),
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db
    .insertInto('task_versions')
    .values({ task_id: task.id, version_index: 0, key, width: 1024, height: 1024 })
    .execute()
  return task.id
}

/** Shares the portrait through the API; answers the page's path. */
async function sharePortrait(webUrl: string, token: string, taskId: string) {
  const shared = await fetch(`${webUrl}/api/async-image/task/${taskId}/share`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'x-auth-token': token },
    body: JSON.stringify({ index: 0, listed: true }),
  })
  const body = (await shared.json()) as { url?: string }
  if (!shared.ok || !body.url) throw new Error(`Sharing failed: ${shared.status}`)
  return new URL(body.url).pathname
}

type PageFigures = Record<(typeof CATEGORIES)[number] | 'lcp' | 'fcp' | 'tbt' | 'cls' | 'bytes', number>

async function auditPage(url: string, port: number, headers: Record<string, string>, reportFile?: string) {
  const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', extraHeaders: headers })
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`)
  if (reportFile) await fs.writeFile(reportFile, JSON.stringify(result.lhr))
  const { categories, audits, runtimeError, finalDisplayedUrl } = result.lhr
  if (runtimeError)
    throw new RecordingFailed(`Lighthouse failed on ${url}: ${runtimeError.code} ${runtimeError.message}`)
  // A signed-in page whose session was not taken would be audited as the sign-in page it redirects to.
  if (new URL(finalDisplayedUrl).pathname !== new URL(url).pathname)
    throw new Error(`Lighthouse audited ${finalDisplayedUrl} instead of ${url}`)
  const numeric = (id: string) => audits[id]?.numericValue ?? NaN
  const figures: PageFigures = {
    performance: categories.performance?.score ?? NaN,
    accessibility: categories.accessibility?.score ?? NaN,
    'best-practices': categories['best-practices']?.score ?? NaN,
    seo: categories.seo?.score ?? NaN,
    lcp: numeric('largest-contentful-paint'),
    fcp: numeric('first-contentful-paint'),
    tbt: numeric('total-blocking-time'),
    cls: numeric('cumulative-layout-shift'),
    bytes: numeric('total-byte-weight'),
  }
  return figures
}

/** Lighthouse's own "run Lighthouse again" failures (NO_NAVSTART, NO_FCP: a trace not recorded). */
class RecordingFailed extends Error {}

/** A run whose trace Lighthouse failed to record is run again, twice at most. */
async function auditPageAgainIfUnrecorded(...args: Parameters<typeof auditPage>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await auditPage(...args)
    } catch (error) {
      if (!(error instanceof RecordingFailed) || attempt === 3) throw error
      console.log(`[lighthouse] ${error.message}; running it again`)
    }
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/**
 * Lighthouse's figures of the built app's pages; needs `npm run build` and Chromium (CHROME_PATH,
 * default /usr/bin/chromium). LIGHTHOUSE_PAGES=/,/generate audits only those; LIGHTHOUSE_REPORT_DIR
 * keeps each run's full report (JSON) there.
 */
export function benchLighthouse({ db, url }: { db: DB; url: string }) {
  return withDataDir(async (dataDir) => {
    await seedTemplates(db, dataDir, 50)
    await ensureAdmin(db, { ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password })
    const web = await startProcess('server/index.ts', { DATABASE_URL: url, DATA_DIR: dataDir }, 'is running at')
    const chrome = await chromeLauncher.launch({
      chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
      chromeFlags: ['--headless=new', '--no-sandbox', '--disable-background-networking', '--disable-gpu'],
    })
    try {
      const login = await fetch(`${web.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(admin),
      })
      const cookie = login.headers.getSetCookie().map((line) => line.split(';')[0])
      if (!login.ok || cookie.length === 0) throw new Error(`Signing in failed: ${login.status}`)
      const { token, user } = (await login.json()) as { token: string; user: { id?: string; _id?: string } }
      const sharePage = await sharePortrait(
        web.url,
        token,
        await seedFinishedPortrait(db, dataDir, user.id ?? user._id ?? ''),
      )

      const results: Record<string, number | string> = {}
      const only = process.env.LIGHTHOUSE_PAGES?.split(',')
      const reportDir = process.env.LIGHTHOUSE_REPORT_DIR
      if (reportDir) await fs.mkdir(reportDir, { recursive: true })
      // The share page is audited as a guest sees it (`/p` in LIGHTHOUSE_PAGES picks it), and last:
      // its visit leaves a referral cookie in the browser, whose cookies then replace the session
      // cookie given to the signed-in pages (those were audited as a guest's before).
      const pages = [...GUEST_PAGES, ...SIGNED_IN_PAGES, sharePage]
      for (const page of pages.filter(
        (page) => !only || only.includes(page) || (page === sharePage && only.includes('/p')),
      )) {
        const headers: Record<string, string> = SIGNED_IN_PAGES.includes(page) ? { Cookie: cookie.join('; ') } : {}
        const runs: PageFigures[] = []
        for (let run = 0; run < RUNS; run++) {
          const reportFile =
            reportDir && path.join(reportDir, `${page.slice(1).replaceAll('/', '-') || 'index'}-${run + 1}.json`)
          runs.push(await auditPageAgainIfUnrecorded(`${web.url}${page}`, chrome.port, headers, reportFile))
        }
        const of = (key: keyof PageFigures) => median(runs.map((figures) => figures[key]))
        const label = page === sharePage ? '/p/{slug}' : page
        results[`${label} scores (perf a11y bp seo)`] = CATEGORIES.map((category) => of(category).toFixed(2)).join(' ')
        results[`${label} LCP / FCP (ms)`] = `${round(of('lcp'), 0)} / ${round(of('fcp'), 0)}`
        results[`${label} TBT (ms) / CLS`] = `${round(of('tbt'), 0)} / ${round(of('cls'), 3)}`
        results[`${label} bytes (KiB)`] = round(of('bytes') / 1024)
        console.log(`[lighthouse] ${page}: performance ${runs.map((figures) => figures.performance).join(', ')}`)
      }
      results['load average (1 min) at the end'] = round(os.loadavg()[0], 2)
      return results
    } finally {
      chrome.kill()
      await web.stop()
    }
  })
}
