// `npm run bench -- live-updates`: 10,000 signed-in browsers watching their tasks on one web process
// (their memory, and the CPU their heartbeats cost while nothing changes) while 200 tasks run and finish over a minute, with the live stream (push) and then with the
// spec's 2-second polling (poll). The task changes are written the way the worker writes them. Each
// watcher is a user of its own: a change reaches one stream, as a user's change reaches their tabs.
import { randomUUID } from 'node:crypto'
import http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import pg from 'pg'
import type { DB } from '#platform/db.server.ts'
import { cpuSeconds, memoryOf, signedInUser } from './generation.ts'
import { percentile, round, startProcess } from './lib.ts'
import { freePort } from '../scripts/embedded-postgres.ts'

const WATCHERS = 10_000
/** Two heartbeats at the default LIVE_UPDATES_HEARTBEAT_MS (15 s). */
const IDLE_MS = 31_000
const TASKS = 200
const SCENARIO_MS = 60_000
const RUN_MS = 10_000
const POLL_MS = 2000
/** Backends flush their counters to pg_stat_database within 10 s of going idle (PostgreSQL 15+). */
const STATS_FLUSH_MS = 11_000

type BenchDatabase = { db: DB; url: string }
type Watcher = { userId: string; token: string }

const keyOf = (task: { id: string; status: string; progress: number }) => `${task.id}:${task.status}:${task.progress}`

export async function benchLiveUpdates({ db, url }: BenchDatabase) {
  const metricsPort = await freePort()
  const web = await startProcess(
    'server/index.ts',
    { DATABASE_URL: url, METRICS_PORT: String(metricsPort) },
    'is running at',
    ['--expose-gc', '--import=./bench/collect-garbage-on-signal.ts'],
  )
  /** The web's JavaScript heap in use, and the size of V8's young generation (its new space), in MB. */
  const heapMb = async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
    const bytes = (pattern: RegExp) => Number(pattern.exec(text)?.[1]) / 2 ** 20
    return {
      used: bytes(/^nodejs_heap_size_used_bytes (\S+)$/m),
      young: bytes(/^nodejs_heap_space_size_total_bytes\{space="new"\} (\S+)$/m),
    }
  }
  const pid = web.child.pid!
  try {
    const watchers: Watcher[] = []
    while (watchers.length < WATCHERS) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => signedInUser(db, 0)))
      watchers.push(...batch.map(({ user, token }) => ({ userId: user.id, token })))
    }
    const seen = new Map<string, number>()
    // A first stream loads what streams need (the route, the LISTEN connection) before measuring.
    ;(await openStream(web.url, watchers[0].token, seen)).destroy()
    await sleep(1000)
    // Read after a full collection: what the process holds, not the garbage opening streams left.
    const memory = async () => {
      process.kill(pid, 'SIGUSR2')
      await sleep(1000)
      const heap = await heapMb()
      return { rssMb: memoryOf(pid).rss, heapMb: heap.used, youngMb: heap.young }
    }
    const before = await memory()
    // Tabs arrive a few dozen at a time (all 10,000 at once would only measure the pool's queue).
    const streams: http.ClientRequest[] = []
    const openStreams = async (until: number) => {
      for (let i = streams.length; i < until; i += 25) {
        const batch = watchers.slice(i, Math.min(i + 25, until))
        streams.push(...(await Promise.all(batch.map((watcher) => openStream(web.url, watcher.token, seen)))))
      }
      await sleep(3000)
      return memory()
    }
    // What a stream costs is what the second half adds: the first half also pays what a busy
    // process grows once, above all V8's young generation, whose largest size V8 derives from the
    // machine's memory (128 MB on this 24 GB machine) and which does not grow with the streams.
    const half = await openStreams(WATCHERS / 2)
    const all = await openStreams(WATCHERS)
    const perStream = (from: typeof before, count: number) =>
      `${round(((all.rssMb - from.rssMb) * 1024) / count, 1)} / ${round(((all.heapMb - from.heapMb) * 1024) / count, 1)}`
    // Nothing changes meanwhile: the web's CPU is the heartbeats' (and a session check's, once a minute).
    const idleCpuBefore = cpuSeconds(pid)
    await sleep(IDLE_MS)
    const idleCpuPercent = ((cpuSeconds(pid) - idleCpuBefore) / (IDLE_MS / 1000)) * 100

    const push = await scenario(db, url, pid, watchers.slice(0, TASKS), seen, () => () => {})
    for (const stream of streams) stream.destroy()
    await sleep(1000)
    const polled = new Map<string, number>()
    const poll = await scenario(db, url, pid, watchers.slice(0, TASKS), polled, (tasks) =>
      pollTasks(web.url, tasks, polled),
    )
    return {
      'open streams': WATCHERS,
      'push: change-to-browser latency p50 / p95 ms, every change (target p95 < 100)': `${push.all.p50} / ${push.all.p95}`,
      'push: completion latency p50 / p95 ms': `${push.completed.p50} / ${push.completed.p95}`,
      'poll: completion latency p50 / p95 ms': `${poll.completed.p50} / ${poll.completed.p95}`,
      'push / poll: web CPU % of one core': `${push.cpuPercent} / ${poll.cpuPercent}`,
      'push / poll: database transactions per s by the web': `${push.webXactsPerSecond} / ${poll.webXactsPerSecond}`,
      'push cost, % of polling queries (target < 10)': round(
        (push.webXactsPerSecond / poll.webXactsPerSecond) * 100,
        1,
      ),
      'web memory per open stream, KB, from 5,000 to 10,000 open: RSS (target < 30) / JavaScript heap': perStream(
        half,
        WATCHERS / 2,
      ),
      'web memory growth from 1 to 10,000 open, KB a stream: RSS / JavaScript heap': perStream(before, WATCHERS),
      "web V8 young generation at 1 / 5,000 / 10,000 open, MB (in the growth's RSS)": [before, half, all]
        .map((memory) => round(memory.youngMb, 0))
        .join(' / '),
      'idle with every stream open (heartbeats): web CPU % of one core (target < 5)': round(idleCpuPercent, 2),
      'changes missed by push / poll': `${push.missed} / ${poll.missedCompletions}`,
    }
  } finally {
    await web.stop()
  }
}

interface Task {
  id: string
  token: string
}

/**
 * 200 queued tasks; each starts at a moment spread over the first 50 s, reports progress 50 %
 * after 5 s and completes 10 s after it started. Answers the latencies (from just before each
 * change is written to the watcher first seeing it), the web's CPU and its transactions per second.
 */
async function scenario(
  db: DB,
  url: string,
  pid: number,
  watchers: Watcher[],
  seen: Map<string, number>,
  watch: (tasks: Task[]) => () => void,
) {
  const tasks: Task[] = watchers.map((watcher) => ({ id: randomUUID(), token: watcher.token }))
  await sql`
    INSERT INTO generation_tasks (id, user_id, kind, params, credit_cost, provider)
    SELECT id, user_id, 'image', '{}', 0, 'bench'
    FROM unnest(${tasks.map((task) => task.id)}::uuid[], ${watchers.map((watcher) => watcher.userId)}::uuid[])
      AS t(id, user_id)
  `.execute(db)
  const stopWatching = watch(tasks)
  await sleep(STATS_FLUSH_MS)

  const written = new Map<string, number>()
  let ownXacts = 0
  const change = async (id: string, set: { status: 'processing' | 'completed'; progress: number }) => {
    written.set(keyOf({ id, ...set }), performance.now())
    ownXacts += 1
    await db
      .updateTable('generation_tasks')
      .set({ ...set, ...(set.status === 'completed' ? { result_key: `tasks/${id}/bench.png` } : {}) })
      .where('id', '=', id)
      .execute()
  }
  const xactsBefore = await transactions(url)
  const cpuBefore = cpuSeconds(pid)
  const startedAt = performance.now()
  await Promise.all(
    tasks.map(async (task, index) => {
      await sleep(((SCENARIO_MS - RUN_MS) * index) / tasks.length)
      await change(task.id, { status: 'processing', progress: 0 })
      await sleep(RUN_MS / 2)
      await change(task.id, { status: 'processing', progress: 50 })
      await sleep(RUN_MS / 2)
      await change(task.id, { status: 'completed', progress: 100 })
    }),
  )
  await sleep(3000)
  const seconds = (performance.now() - startedAt) / 1000
  const cpuPercent = round(((cpuSeconds(pid) - cpuBefore) / seconds) * 100, 1)
  stopWatching()
  await sleep(STATS_FLUSH_MS)
  const xacts = (await transactions(url)) - xactsBefore - ownXacts - 1

  const latencies = (filter: (key: string) => boolean) => {
    const values = [...written]
      .filter(([key]) => filter(key) && seen.has(key))
      .map(([key, at]) => Math.max(0, seen.get(key)! - at))
      .sort((a, b) => a - b)
    return { p50: round(percentile(values, 50)), p95: round(percentile(values, 95)) }
  }
  const isCompletion = (key: string) => key.endsWith(':completed:100')
  return {
    all: latencies(() => true),
    completed: latencies(isCompletion),
    cpuPercent,
    webXactsPerSecond: round(xacts / seconds, 1),
    missed: [...written.keys()].filter((key) => !seen.has(key)).length,
    missedCompletions: [...written.keys()].filter((key) => isCompletion(key) && !seen.has(key)).length,
  }
}

/** A browser tab's EventSource, reduced to noting when each task state first arrives. */
function openStream(origin: string, token: string, seen: Map<string, number>) {
  return new Promise<http.ClientRequest>((resolve, reject) => {
    const request = http.get(`${origin}/api/tasks/events`, { headers: { 'x-auth-token': token }, agent: false })
    request.on('response', (response) => {
      if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`))
      let buffer = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        const now = performance.now()
        buffer += chunk
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1]
          buffer = buffer.slice(end + 2)
          if (!data) continue
          const key = keyOf(JSON.parse(data) as { id: string; status: string; progress: number })
          if (!seen.has(key)) seen.set(key, now)
        }
      })
      response.on('error', () => {})
      resolve(request)
    })
    request.on('error', reject)
  })
}

/** The sidebar without the stream: every 2 s, each unfinished task is read from the task API. */
function pollTasks(origin: string, tasks: Task[], seen: Map<string, number>) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
  const finished = new Set<string>()
  const timers = tasks.map((task, index) => {
    const read = () => {
      if (finished.has(task.id)) return
      http
        .get(`${origin}/api/async-image/task/${task.id}`, { headers: { 'x-auth-token': task.token }, agent }, (res) => {
          let body = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => (body += chunk))
          res.on('end', () => {
            const view = JSON.parse(body) as { id: string; status: string; progress: number }
            const key = keyOf(view)
            if (!seen.has(key)) seen.set(key, performance.now())
            if (view.status === 'completed') finished.add(task.id)
          })
        })
        .on('error', () => {})
    }
    // Tabs opened at different moments: their polls do not all fall on the same instant.
    const start = setTimeout(
      () => (timers[index].interval = setInterval(read, POLL_MS)),
      (POLL_MS * index) / tasks.length,
    )
    return { start, interval: undefined as NodeJS.Timeout | undefined }
  })
  return () => {
    for (const timer of timers) {
      clearTimeout(timer.start)
      clearInterval(timer.interval)
    }
    agent.destroy()
  }
}

async function transactions(url: string) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: string }>(
      'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
    )
    return Number(rows[0].n)
  } finally {
    await client.end()
  }
}
