import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import net from 'node:net'
import { sql } from 'kysely'
import { DEFAULT_POOL_SIZE, getDb } from '#platform/db.server.ts'
import { waitFor } from '#tests/helpers/worker-process.ts'

/**
 * The real web process (server/index.ts over a fresh `remix build`), as Fly runs it: the routes
 * (in the build) and the process's own pieces (metrics, /readyz) must share one module graph, so
 * one database pool, and the web needs none of the provider keys only the worker uses.
 */
let web: ChildProcess
const output: string[] = []
let origin = ''
let metricsOrigin = ''

async function freePort() {
  const server = net.createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

beforeAll(async () => {
  const build = spawnSync(process.execPath, ['node_modules/@remix-run/dev/dist/cli.js', 'build'], { encoding: 'utf8' })
  expect(build.status, build.stderr).toBe(0)
  const [port, metricsPort] = [await freePort(), await freePort()]
  origin = `http://127.0.0.1:${port}`
  metricsOrigin = `http://127.0.0.1:${metricsPort}`
  web = spawn(process.execPath, ['server/index.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      // Remote providers named, their keys left to the worker.
      IMAGE_PROVIDER: 'openai',
      VIDEO_PROVIDER: 'veo',
      OPENAI_API_KEY: '',
      GEMINI_API_KEY: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  web.stdout?.on('data', (chunk) => output.push(String(chunk)))
  web.stderr?.on('data', (chunk) => output.push(String(chunk)))
  await waitFor(
    () =>
      web.exitCode !== null ||
      fetch(`${origin}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    {
      timeout: 20_000,
    },
  )
  expect(web.exitCode, output.join('')).toBeNull()
}, 60_000)

afterAll(async () => {
  if (web && web.exitCode === null) {
    const exited = new Promise((resolve) => web.once('exit', resolve))
    web.kill('SIGTERM')
    await exited
  }
})

test('the web starts without the providers’ keys, which only the worker uses', async () => {
  const response = await fetch(`${origin}/readyz`)
  expect(response.status).toBe(200)
  expect(output.join('')).not.toContain('Invalid environment configuration')
  // Without an OpenAI key nothing is moderated: the start-up says so, once.
  expect(
    output.join('').match(/Moderation off \(no OPENAI_API_KEY\): prompts and photos are not moderated/g),
  ).toHaveLength(1)
  // Nor are cards offered without a Stripe key (decision 0041).
  expect(output.join('').match(/Card payments off \(no STRIPE_SECRET_KEY\)/g)).toHaveLength(1)
})

test('under load from routes, /metrics and /readyz the web opens no more than its one pool', async () => {
  // The web names its connections (server/index.ts); this file's database is its own.
  const countConnections = async () => {
    const { rows } = await sql<{ count: number }>`
      SELECT count(*)::int AS count FROM pg_stat_activity
      WHERE application_name = 'pawtrait-web' AND datname = current_database()`.execute(getDb())
    return rows[0].count
  }
  let most = 0
  let loading = true
  const sampling = (async () => {
    while (loading) {
      most = Math.max(most, await countConnections())
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })()
  for (let round = 0; round < 3; round += 1) {
    const answers = await Promise.all([
      // Routes of the Remix build…
      ...Array.from({ length: 40 }, () => fetch(`${origin}/readyz`)),
      // …and the process's own metrics server (the database gauges are read at scrape time).
      ...Array.from({ length: 10 }, () => fetch(`${metricsOrigin}/metrics`)),
      ...Array.from({ length: 10 }, () => fetch(`${metricsOrigin}/readyz`)),
    ])
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200))
  }
  most = Math.max(most, await countConnections())
  loading = false
  await sampling
  expect(most).toBeGreaterThan(1)
  expect(most).toBeLessThanOrEqual(DEFAULT_POOL_SIZE)
})
