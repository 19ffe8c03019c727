import fs from 'node:fs'
import { getDb } from '#platform/db.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { withOwnDataDir } from '#tests/helpers/generation.ts'
import { finishedTaskWithVersion } from '#tests/helpers/finished-task.ts'
import { startWebProcess } from '#tests/helpers/web-process.ts'
import { noisePng } from '#tests/helpers/noise-pictures.ts'

// Issue 38, item 1: a burst of shares of one large version used to read the whole file and decode
// it three times per request, all at once, in the web process.
withOwnDataDir()
process.env.PUBLIC_URL = 'https://pawtrait.example'
const db = getDb()

/** The resident memory of a process, in bytes (Linux). */
function residentBytes(pid: number) {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(match?.[1] ?? 0) * 1024
}

/** A 3840×2160 PNG of noise (about 20 MB). */
const noise4k = () => noisePng({ width: 3840, height: 2160, background: '#806040' })

test('30 parallel shares of a 4K version: no 5xx, one page, the web within 200 MB of where it started', async () => {
  const web = await startWebProcess()
  try {
    const { user, token } = await createTestUser()
    const version = await noise4k()
    expect(version.length).toBeGreaterThan(10 * 1024 * 1024)
    const { taskId } = await finishedTaskWithVersion(user.id, version)
    const share = () =>
      fetch(`${web.origin}/api/async-image/task/${taskId}/share`, {
        method: 'POST',
        headers: { 'x-auth-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({ index: 0 }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as { url?: string } }))

    const before = residentBytes(web.pid)
    let peak = before
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(web.pid))), 10)
    const answers = await Promise.all(Array.from({ length: 30 }, share)).finally(() => clearInterval(sampler))
    peak = Math.max(peak, residentBytes(web.pid))
    console.log(`web RSS before ${Math.round(before / 2 ** 20)} MB, peak ${Math.round(peak / 2 ** 20)} MB`)

    expect(answers.filter((answer) => answer.status >= 500)).toEqual([])
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array<number>(29).fill(200), 201])
    const pages = await db.selectFrom('share_pages').select('slug').where('task_id', '=', taskId).execute()
    expect(pages).toHaveLength(1)
    expect(new Set(answers.map((answer) => answer.body.url))).toEqual(
      new Set([`https://pawtrait.example/p/${pages[0].slug}`]),
    )
    expect(peak - before).toBeLessThan(200 * 2 ** 20)
  } finally {
    await web.stop()
  }
}, 120_000)
