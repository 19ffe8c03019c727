// Issue 4's figures: task reads under load against a bare node:http baseline, queue latency and
// throughput with the instant provider, and the web's peak memory during large uploads.
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import { sql } from 'kysely'
import sharp from 'sharp'
import { createPool, type DB } from '#platform/db.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { createSession, hashToken } from '#domain/sessions/session.server.ts'
import { createUser } from '#domain/accounts/user.server.ts'
import { selectTasksWithQueue } from '#domain/generation/user-tasks.server.ts'
import { drawnPetPhoto } from '#tests/helpers/pet-photos.ts'
import { noisePng } from '#tests/helpers/noise-pictures.ts'
import { freePort } from '../scripts/embedded-postgres.ts'
import { percentile, round, startProcess } from './lib.ts'

type BenchDatabase = { db: DB; url: string }

let users = 0

/** A new user with a session (and a password, for a bench that also signs in). */
export async function signedInUser(db: DB, credits: number, password?: string) {
  users += 1
  const email = `bench-${users}-${Date.now()}@example.com`
  const user = await createUser(db, { email, name: 'Bench', credits, password })
  const { token } = await createSession(db, user.id)
  return { user, token, email }
}

/** A scratch media folder for the processes of one benchmark. */
export async function withDataDir<T>(run: (dataDir: string) => Promise<T>) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pawtrait-bench-'))
  try {
    return await run(dataDir)
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
}

/** POST /api/async-image/generate with the photo: the status and the JSON answer. */
export async function postGeneration(
  baseUrl: string,
  token: string,
  photo: Buffer,
  fields: Record<string, string> = {},
) {
  const form = new FormData()
  form.append('images', new File([new Uint8Array(photo)], 'pet.jpg', { type: 'image/jpeg' }))
  form.append('style', 'general')
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  const response = await fetch(`${baseUrl}/api/async-image/generate`, {
    method: 'POST',
    headers: { 'x-auth-token': token },
    body: form,
  })
  return { status: response.status, body: (await response.json()) as { taskId?: string; message?: string } }
}

async function submit(baseUrl: string, token: string, photo: Buffer) {
  const { status, body } = await postGeneration(baseUrl, token, photo)
  if (status !== 200 || !body.taskId) throw new Error(`submission failed (${status}): ${body.message}`)
  return body.taskId
}

/** A pet photo that passes the photo check (1024 px, about 100 KB). */
export const smallPhoto = () => drawnPetPhoto()

// ---------------------------------------------------------------------------------------------
// (a) GET /api/async-image/task/{id}

const LOAD = { connections: 50, duration: 5 }
const ROUNDS = 2

/** `cpuMs`: CPU time the server process spent per request (when its pid is known). */
type Load = { rps: number; p99: number; cpuMs: number }
const average = (loads: Load[], key: keyof Load) => loads.reduce((sum, l) => sum + l[key], 0) / loads.length
const mean = (loads: Load[]): Load => ({
  rps: average(loads, 'rps'),
  p99: average(loads, 'p99'),
  cpuMs: average(loads, 'cpuMs'),
})

/** A server under load: its URL, and its process id when it is a child process. */
type Target = { url: string; pid?: number }

async function load({ url, pid }: Target, token: string): Promise<Load> {
  await autocannon({ url, connections: LOAD.connections, duration: 2, headers: { 'x-auth-token': token } }) // warm up
  const cpuBefore = pid ? cpuSeconds(pid) : 0
  const result = await autocannon({ url, ...LOAD, headers: { 'x-auth-token': token } })
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
  }
  const cpuMs = pid ? ((cpuSeconds(pid) - cpuBefore) * 1000) / result.requests.total : NaN
  return { rps: result.requests.average, p99: result.latency.p99, cpuMs }
}

/** User plus system CPU time of a process, from /proc (in clock ticks of 10 ms). */
export function cpuSeconds(pid: number) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/**
 * Alternating rounds, so a change in the machine's load weighs on both sides alike; every other
 * round starts with the second, so neither side always runs first.
 */
async function alternatingLoads(first: Target, second: Target, token: string, rounds: number) {
  const results: Array<[Load, Load]> = []
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      const firstLoad = await load(first, token)
      results.push([firstLoad, await load(second, token)])
    } else {
      const secondLoad = await load(second, token)
      results.push([await load(first, token), secondLoad])
    }
  }
  return [mean(results.map((r) => r[0])), mean(results.map((r) => r[1]))] as const
}

/**
 * The same work as the app's route, without the framework: the session lookup (mirroring
 * session.server.ts; the app keeps sessions in a cache) and the app's own task query, compiled from
 * the domain's (selectTasksWithQueue), answered as JSON. `prepared` (named) as the app's task read
 * is (decision 0045), so that ratio measures the app's own cost and not the planner's; unprepared as
 * node-postgres sends a query by default, the baseline issue 42 measured against.
 */
function startBareServer(db: DB, databaseUrl: string, { prepared }: { prepared: boolean }) {
  const pool = createPool(databaseUrl)
  const taskQuery = selectTasksWithQueue(db)
    .where('t.id', '=', '')
    .where('t.user_id', '=', '')
    .where('t.kind', '=', 'image')
    .compile().sql
  const server = http.createServer(async (request, response) => {
    try {
      const token = String(request.headers['x-auth-token'] ?? '')
      const session = await pool.query({
        name: prepared ? 'bare-session' : undefined,
        text: `SELECT users.* FROM sessions JOIN users ON users.id = sessions.user_id
         WHERE sessions.token_hash = $1 AND sessions.expires_at > now() AND users.is_banned = false`,
        values: [hashToken(token)],
      })
      const user = session.rows[0]
      if (!user) return void response.writeHead(401).end()
      const id = request.url?.split('/').pop()
      const { rows } = await pool.query({
        name: prepared ? 'bare-task' : undefined,
        text: taskQuery,
        values: [id, user.id, 'image'],
      })
      const task = rows[0]
      if (!task) return void response.writeHead(404).end()
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      response.end(
        JSON.stringify({
          id: task.id,
          type: task.kind,
          status: task.status,
          progress: task.progress,
          queuePosition: task.queue_position,
          totalInQueue: task.total_in_queue,
          runningTasks: task.running_tasks,
          result: null,
          images: task.versions,
          error: task.error,
          refunds: task.refunds,
          subject: task.subject,
        }),
      )
    } catch (error) {
      response.writeHead(500).end(String(error))
    }
  })
  return new Promise<{ url: string; stop: () => Promise<void> }>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        stop: async () => {
          await new Promise((done) => server.close(done))
          await pool.end()
        },
      })
    })
  })
}

/**
 * 5,000 tasks, 200 of them queued, beside 1,000 saved pets and a gallery of 50 templates; then one
 * queued task to read, made from a template with a saved pet (what its downloads are named after).
 */
async function seedTasks(db: DB, userId: string) {
  await sql`
    INSERT INTO generation_tasks (user_id, kind, status, credit_cost, provider, created_at)
    SELECT ${userId}, 'image', CASE WHEN g % 25 = 0 THEN 'queued' ELSE 'completed' END, 2, 'local',
      now() - g * interval '1 minute'
    FROM generate_series(1, 5000) AS g
  `.execute(db)
  await sql`
    INSERT INTO pets (user_id, name, species) SELECT ${userId}, 'Pet ' || g, 'dog' FROM generate_series(1, 1000) AS g
  `.execute(db)
  await sql`
    INSERT INTO templates (name, style, other_params, image_key, thumbnail_key, display_key, width, height)
    SELECT 'Template ' || g, 'portrait', '{}', 'templates/' || g || '.png', 'templates/' || g || '-t.webp',
      'templates/' || g || '-d.webp', 1024, 1024
    FROM generate_series(1, 50) AS g
  `.execute(db)
  const pet = await db.selectFrom('pets').select('id').where('user_id', '=', userId).executeTakeFirstOrThrow()
  const template = await db.selectFrom('templates').select('id').executeTakeFirstOrThrow()
  const task = await db
    .insertInto('generation_tasks')
    .values({
      user_id: userId,
      kind: 'image',
      source: 'template',
      credit_cost: 2,
      provider: 'local',
      params: { petId: pet.id, templateId: template.id },
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  await sql`VACUUM ANALYZE`.execute(db) // as autovacuum would have by now
  return task.id
}

export async function benchTaskReads({ db, url }: BenchDatabase) {
  const { user, token } = await signedInUser(db, 10)
  const taskId = await seedTasks(db, user.id)
  const web = await startProcess('server/index.ts', { DATABASE_URL: url }, 'is running at')
  const bare = await startBareServer(db, url, { prepared: true })
  const unprepared = await startBareServer(db, url, { prepared: false })
  try {
    const path = `/api/async-image/task/${taskId}`
    const [app, baseline] = await alternatingLoads(
      { url: web.url + path, pid: web.child.pid },
      { url: bare.url + path },
      token,
      ROUNDS,
    )
    const [appAgain, plain] = await alternatingLoads(
      { url: web.url + path },
      { url: unprepared.url + path },
      token,
      ROUNDS,
    )
    return {
      'task read req/s (app)': round(app.rps),
      'task read p99 ms (app)': round(app.p99, 2),
      // The web process's own CPU a read (the bare server shares its process with the load generator).
      'task read web CPU µs per read (app)': round(app.cpuMs * 1000, 0),
      'task read req/s (bare node:http + pg, prepared)': round(baseline.rps),
      'task read p99 ms (bare node:http + pg, prepared)': round(baseline.p99, 2),
      'task read req/s ratio app/bare prepared (target >= 0.75)': round(app.rps / baseline.rps, 2),
      'task read req/s (bare node:http + pg, unprepared)': round(plain.rps),
      "task read req/s ratio app/bare unprepared (the issue's baseline)": round(appAgain.rps / plain.rps, 2),
    }
  } finally {
    await Promise.all([web.stop(), bare.stop(), unprepared.stop()])
  }
}

/**
 * Issue 15's figure: what metrics cost the same task reads. Two web processes, one with its
 * metrics port (the request histogram, default process metrics, the database figures on scrape,
 * scraped every 5 s: three times as often as Fly does) and one with METRICS_PORT=0, loaded in
 * alternating rounds.
 */
export async function benchTaskReadMetrics({ db, url }: BenchDatabase) {
  const { user, token } = await signedInUser(db, 10)
  const taskId = await seedTasks(db, user.id)
  const metricsPort = await freePort()
  const measured = await startProcess(
    'server/index.ts',
    { DATABASE_URL: url, METRICS_PORT: String(metricsPort) },
    'is running at',
  )
  const plain = await startProcess('server/index.ts', { DATABASE_URL: url }, 'is running at')
  let scrapes = 0
  const scraper = setInterval(() => {
    fetch(`http://127.0.0.1:${metricsPort}/metrics`)
      .then((response) => response.text())
      .then(
        () => void (scrapes += 1),
        () => {},
      )
  }, SCRAPE_MS)
  try {
    const path = `/api/async-image/task/${taskId}`
    const [on, off] = await alternatingLoads(
      { url: measured.url + path, pid: measured.child.pid },
      { url: plain.url + path, pid: plain.child.pid },
      token,
      METRICS_ROUNDS,
    )
    if (scrapes === 0) throw new Error('the metrics endpoint never answered')
    clearInterval(scraper)
    // On a busy shared machine req/s (and even CPU per request) swing by tens of percent between
    // rounds, more than the effect measured. So the cost is also measured directly: the CPU of
    // the metrics work per request (the histogram observation) and per scrape (in the web
    // process), against the CPU one task read costs, at Fly's scrape interval.
    const observeMs = histogramObservationMs()
    const scrapeMs = await scrapeCpuMs(metricsPort, measured.child.pid!)
    const perRequestMs = observeMs + scrapeMs / (FLY_SCRAPE_S * off.rps)
    return {
      'task read req/s, metrics on / off (A/B, noisy)': `${round(on.rps)} / ${round(off.rps)}`,
      'task read p99 ms, metrics on / off (A/B, noisy)': `${round(on.p99, 2)} / ${round(off.p99, 2)}`,
      'web CPU ms per task read, metrics on / off (A/B)': `${round(on.cpuMs, 3)} / ${round(off.cpuMs, 3)}`,
      'metrics CPU per request µs (histogram observation)': round(observeMs * 1000, 2),
      'metrics CPU per scrape ms (web process)': round(scrapeMs, 2),
      'metrics cost, % of task-read throughput (target < 5)': round((perRequestMs / off.cpuMs) * 100, 2),
    }
  } finally {
    clearInterval(scraper)
    await Promise.all([measured.stop(), plain.stop()])
  }
}

const METRICS_ROUNDS = 4
const SCRAPE_MS = 5000
const FLY_SCRAPE_S = 15

/** CPU time of one `http_request_duration_seconds` observation, as the request log makes it. */
function histogramObservationMs() {
  const { httpRequestDuration } = getMetrics()
  const count = 200_000
  const started = process.cpuUsage()
  for (let i = 0; i < count; i++) {
    httpRequestDuration.observe({ method: 'GET', route: '/api/async-image/task/:id', status: 200 }, (i % 50) / 1000)
  }
  const used = process.cpuUsage(started)
  return (used.user + used.system) / 1000 / count
}

/** CPU time the web process spends answering one /metrics scrape (database figures included). */
async function scrapeCpuMs(port: number, pid: number) {
  const count = 40
  const before = cpuSeconds(pid)
  for (let i = 0; i < count; i++) await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  return ((cpuSeconds(pid) - before) * 1000) / count
}

// ---------------------------------------------------------------------------------------------
// (b) and (c): the queue with the instant provider

const LATENCY_SAMPLES = 40
const THROUGHPUT_TASKS = 300
const SUBMITTERS = 16

export async function waitUntilFinished(db: DB, ids: string[]) {
  for (;;) {
    const { count } = await db
      .selectFrom('generation_tasks')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('id', 'in', ids)
      .where('status', 'in', ['queued', 'processing'])
      .executeTakeFirstOrThrow()
    if (Number(count) === 0) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

export async function benchQueue({ db, url }: BenchDatabase) {
  return withDataDir(async (dataDir) => {
    const env = { DATABASE_URL: url, DATA_DIR: dataDir }
    // One bench user submits every task: the per-user limit of active tasks is lifted here.
    const web = await startProcess('server/index.ts', { ...env, MAX_ACTIVE_TASKS_PER_USER: '1000000' }, 'is running at')
    // The instant provider is refused in production; the worker runs as in development.
    const worker = await startProcess(
      'worker/index.ts',
      { ...env, NODE_ENV: 'development', IMAGE_PROVIDER: 'instant', IMAGE_CONCURRENCY: '8' },
      '[worker] started',
    )
    try {
      const { token } = await signedInUser(db, 1_000_000)
      const photo = await smallPhoto()

      // (b) One task at a time, so each waits for nothing but the pickup.
      const latencies: number[] = []
      for (let i = 0; i < LATENCY_SAMPLES; i++) {
        const id = await submit(web.url, token, photo)
        await waitUntilFinished(db, [id])
        const { rows } = await sql<{ ms: number }>`
          SELECT extract(epoch FROM started_at - created_at) * 1000 AS ms FROM generation_tasks WHERE id = ${id}
        `.execute(db)
        latencies.push(Number(rows[0].ms))
      }
      latencies.sort((a, b) => a - b)

      // (c) Many submitters at once, until every task is done.
      const started = performance.now()
      const ids: string[] = []
      await Promise.all(
        Array.from({ length: SUBMITTERS }, async () => {
          while (ids.length < THROUGHPUT_TASKS) {
            const slot = ids.push('') - 1 // reserved before the await, so exactly THROUGHPUT_TASKS are sent
            ids[slot] = await submit(web.url, token, photo)
          }
        }),
      )
      await waitUntilFinished(db, ids)
      const seconds = (performance.now() - started) / 1000
      const { count: failed } = await db
        .selectFrom('generation_tasks')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('status', '=', 'failed')
        .executeTakeFirstOrThrow()

      return {
        'submission to worker start p50 ms (target <= 5)': round(percentile(latencies, 50), 1),
        'submission to worker start p95 ms': round(percentile(latencies, 95), 1),
        [`tasks/s end to end (${THROUGHPUT_TASKS} tasks, ${SUBMITTERS} submitters, concurrency 8)`]: round(
          THROUGHPUT_TASKS / seconds,
          1,
        ),
        'failed tasks': Number(failed),
      }
    } finally {
      await Promise.all([web.stop(), worker.stop()])
    }
  })
}

// ---------------------------------------------------------------------------------------------
// (d) Memory while 8 users upload 10 MB photos at once

const UPLOADERS = 8
const MB = 1024 * 1024

/** A real photo-sized JPEG (a drawn pet under 24 megapixels of fine detail) just under the 10 MB limit. */
async function tenMegabytePhoto() {
  const [width, height] = [5656, 4242]
  const noise = await noisePng({ width, height })
  // The pet keeps the photo check passing; the grain keeps the file large.
  const noisy = await sharp(await drawnPetPhoto({ width }))
    .composite([{ input: noise, blend: 'overlay' }])
    .png()
    .toBuffer()
  for (let quality = 95; quality > 5; quality -= 5) {
    const jpeg = await sharp(noisy).blur(0.6).jpeg({ quality }).toBuffer()
    if (jpeg.length <= 10 * MB) return jpeg
  }
  throw new Error('could not make a photo under 10 MB')
}

/** Resident memory of a process, from /proc (Linux): now, and the peak so far. */
export function memoryOf(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kilobytes = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN)
  return { rss: kilobytes('VmRSS') / 1024, peak: kilobytes('VmHWM') / 1024 }
}

export async function benchUploadMemory({ db, url }: BenchDatabase) {
  return withDataDir(async (dataDir) => {
    const web = await startProcess('server/index.ts', { DATABASE_URL: url, DATA_DIR: dataDir }, 'is running at')
    try {
      const photo = await tenMegabytePhoto()
      const uploaders = await Promise.all(Array.from({ length: UPLOADERS }, () => signedInUser(db, 10)))
      await submit(web.url, uploaders[0].token, await smallPhoto()) // warm up the route
      const before = memoryOf(web.child.pid!)
      const started = performance.now()
      await Promise.all(uploaders.map(({ token }) => submit(web.url, token, photo)))
      const seconds = (performance.now() - started) / 1000
      const after = memoryOf(web.child.pid!)
      return {
        'upload photo size MB': round(photo.length / MB, 2),
        'web RSS before uploads MB': round(before.rss),
        [`web peak RSS during ${UPLOADERS} parallel uploads MB (target < 400)`]: round(after.peak),
        [`${UPLOADERS} parallel 10 MB uploads took s`]: round(seconds, 2),
      }
    } finally {
      await web.stop()
    }
  })
}
