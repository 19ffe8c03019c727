// Issue 20's and 30's figures: a PostgreSQL shut down immediately (as in a crash or a failover)
// for 20 s, then one that hangs (every process SIGSTOPped) for 20 s, each while 50 image tasks
// are in flight at the OpenAI fake (2 s per image), with the web and two worker processes running
// and clients calling the API and pages throughout.
import fs from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import path from 'node:path'
import { createDb, createPool } from '#platform/db.server.ts'
import { migrateToLatest } from '../scripts/migrate-to-latest.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { freePort, startEmbeddedPostgres } from '../scripts/embedded-postgres.ts'
import { seedDefaults } from '../scripts/seed/defaults.ts'
import { postGeneration, signedInUser, smallPhoto, waitUntilFinished, withDataDir } from './generation.ts'
import { round, startProcess } from './lib.ts'

const TASKS = 50
const USERS = 10
const ANSWER_MS = 2_000
const OUTAGE_MS = 20_000
const WORKERS = 2
const PASSWORD = 'bench-outage-password'
/** A refused connection is answered at once; an unanswered query after the web's 3 s query timeout. */
const SLOWEST_TARGET_MS: Record<string, number> = { 'shut down': 5_000, frozen: 6_000 }

/** The database this bench takes away is its own (the other benches share theirs). */
export async function benchOutage() {
  const folder = path.resolve('.data/bench-outage-postgres')
  fs.rmSync(folder, { recursive: true, force: true })
  const port = await freePort()
  let server = await startEmbeddedPostgres(folder, 'pawtrait', port)
  // A pool of the bench's own, which outlives the outage (it reconnects; its errors are handled).
  const pool = createPool(server.url, { max: 5 })
  const db = createDb(pool)
  await migrateToLatest(db, pool)
  await seedDefaults(db)
  const fake = await startOpenAiFake({ latencyMs: ANSWER_MS })
  try {
    return await withDataDir(async (dataDir) => {
      const env = { DATABASE_URL: server.url, DATA_DIR: dataDir }
      const web = await startProcess('server/index.ts', env, 'is running at')
      const workers = await Promise.all(
        Array.from({ length: WORKERS }, () =>
          startProcess(
            'worker/index.ts',
            {
              ...env,
              IMAGE_PROVIDER: 'openai',
              OPENAI_API_KEY: fake.apiKey,
              OPENAI_BASE_URL: fake.baseUrl,
              IMAGE_CONCURRENCY: String(TASKS / WORKERS),
            },
            '[worker] started',
          ),
        ),
      )
      const died: string[] = []
      for (const { child } of [web, ...workers]) child.once('exit', (code, signal) => died.push(String(signal ?? code)))
      const photo = await smallPhoto()
      const users = await Promise.all(Array.from({ length: USERS }, () => signedInUser(db, 1_000, PASSWORD)))
      const figures: Record<string, number | string> = {}
      let traffic: ReturnType<typeof startTraffic> | undefined
      try {
        /** TASKS tasks submitted; once half of them are at the provider, `outage` runs; then all must finish. */
        const phase = async (name: string, outage: () => Promise<number>) => {
          fake.requests.length = 0
          traffic = startTraffic(web.url, users)
          const ids: string[] = []
          for (const { token } of users) {
            for (let i = 0; i < TASKS / USERS; i++) {
              const { status, body } = await postGeneration(web.url, token, photo)
              if (status !== 200 || !body.taskId) throw new Error(`submission failed (${status}): ${body.message}`)
              ids.push(body.taskId)
            }
          }
          // Half the tasks are at the provider (the rest about to be): the database goes now.
          while (fake.requests.length < TASKS / 2) await sleep(20)
          const back = await outage()
          const firstCompleted = await timeUntil(async () => {
            const row = await db
              .selectFrom('generation_tasks')
              .select('id')
              .where('id', 'in', ids)
              .where('status', '=', 'completed')
              .executeTakeFirst()
              .catch(() => undefined)
            return row !== undefined
          }, back)
          await waitUntilFinished(db, ids)
          const { count: failed } = await db
            .selectFrom('generation_tasks')
            .select((eb) => eb.fn.countAll<number>().as('count'))
            .where('id', 'in', ids)
            .where('status', '=', 'failed')
            .executeTakeFirstOrThrow()
          const answers = await traffic.stop()
          traffic = undefined
          Object.assign(figures, {
            [`${name}: requests answered 5xx other than 503 (target 0)`]: answers.otherServerErrors,
            [`${name}: requests answered 503 during the outage`]: answers.unavailable,
            [`${name}: requests answered in all`]: answers.total,
            [`${name}: slowest answer ms (target < ${SLOWEST_TARGET_MS[name]})`]: round(answers.slowestMs, 0),
            [`${name}: s from the database's return to the first completed task (target < 10)`]: round(
              firstCompleted / 1000,
              1,
            ),
            [`${name}: provider calls / tasks (target 1.00)`]: (fake.requests.length / ids.length).toFixed(2),
            [`${name}: tasks failed (target 0)`]: Number(failed),
          })
        }
        await phase('shut down', async () => {
          await server.crash()
          await sleep(OUTAGE_MS)
          // Timed from the restart itself (crash recovery included): an upper bound of the wait.
          const back = performance.now()
          server = await startEmbeddedPostgres(folder, 'pawtrait', port)
          return back
        })
        // Every PostgreSQL process stopped: connections are accepted, nothing is answered.
        await phase('frozen', async () => {
          server.freeze()
          await sleep(OUTAGE_MS)
          server.thaw()
          return performance.now()
        })
        figures['processes that died (target 0)'] = died.length
        return figures
      } finally {
        await traffic?.stop()
        const stopping = [web, ...workers].map((started) => started.stop())
        died.length = 0
        await Promise.all(stopping)
      }
    })
  } finally {
    await fake.close()
    await db.destroy()
    await server.stop()
    fs.rmSync(folder, { recursive: true, force: true })
  }
}

/**
 * Clients calling the API (their own user, a login, the task list) and pages (one anonymous, one
 * signed in), one after the other each, until stopped; counts the answers by class.
 */
function startTraffic(webUrl: string, users: { token: string; email: string }[]) {
  const counts = { total: 0, unavailable: 0, otherServerErrors: 0, slowestMs: 0 }
  let going = true
  const call = async (path: string, init?: RequestInit) => {
    const started = performance.now()
    const response = await fetch(webUrl + path, init).catch(() => null)
    await response?.arrayBuffer()
    counts.total += 1
    counts.slowestMs = Math.max(counts.slowestMs, performance.now() - started)
    const status = response?.status ?? 599
    if (status === 503) counts.unavailable += 1
    else if (status >= 500) counts.otherServerErrors += 1
  }
  const client = async () => {
    while (going) {
      const user = users[Math.floor(Math.random() * users.length)]
      if (!user) {
        await sleep(50)
        continue
      }
      await call('/api/auth/me', { headers: { 'x-auth-token': user.token } })
      await call('/api/async-image/tasks/today', { headers: { 'x-auth-token': user.token } })
      await call('/api/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: user.email, password: PASSWORD }),
      })
      await call('/')
      // A signed-in page (pages read the token header too): the database's 503 page meanwhile.
      await call('/history', { headers: { 'x-auth-token': user.token } })
      await sleep(100)
    }
  }
  const clients = Array.from({ length: 4 }, client)
  return {
    async stop() {
      going = false
      await Promise.all(clients)
      return counts
    },
  }
}

async function timeUntil(check: () => Promise<boolean>, since: number) {
  while (!(await check())) await sleep(100)
  return performance.now() - since
}
