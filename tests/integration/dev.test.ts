import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { freePort } from '../../scripts/embedded-postgres.ts'
import { waitFor } from '#tests/helpers/worker-process.ts'

/**
 * `npm run dev` (scripts/dev.ts) in a copy of the project, so its development build and the files
 * the test changes never touch the checkout's build/ (which other test files serve) or sources.
 */
const root = path.resolve(import.meta.dirname, '../..')
const copied = ['app', 'domain', 'platform', 'server', 'worker', 'scripts', 'migrations', 'public']
const copiedFiles = ['package.json', 'remix.config.js', 'tsconfig.json']

let dir: string
let dev: ChildProcess | undefined
const output: string[] = []
/** What the processes printed, without the colours of the development log format. */
const printed = () => stripVTControlCharacters(output.join(''))
const count = (pattern: RegExp) => printed().match(new RegExp(pattern, 'g'))?.length ?? 0

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pawtrait-dev-'))
  for (const folder of copied) {
    fs.cpSync(path.join(root, folder), path.join(dir, folder), {
      recursive: true,
      filter: (source) => !source.startsWith(path.join(root, 'public/build')),
    })
  }
  for (const file of copiedFiles) fs.copyFileSync(path.join(root, file), path.join(dir, file))
  fs.symlinkSync(fs.realpathSync(path.join(root, 'node_modules')), path.join(dir, 'node_modules'))
})

afterAll(async () => {
  if (dev && dev.exitCode === null && dev.signalCode === null) {
    dev.kill('SIGTERM')
    await new Promise((resolve) => dev?.once('exit', resolve))
  }
  fs.rmSync(dir, { recursive: true, force: true })
})

test('npm run dev prints the address, rebuilds and restarts the web on a route change, restarts the worker on a domain change, and stops', async () => {
  const port = await freePort()
  dev = spawn(process.execPath, ['scripts/dev.ts'], {
    cwd: dir,
    env: { ...process.env, PORT: String(port), DATA_DIR: path.join(dir, '.data'), SEED_DEMO_GALLERY: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  dev.stdout?.on('data', (chunk) => output.push(String(chunk)))
  dev.stderr?.on('data', (chunk) => output.push(String(chunk)))
  const exited = new Promise<number | null>((resolve) => dev?.once('exit', (code) => resolve(code)))
  const origin = `http://localhost:${port}`

  // The first build is served, and the address to open is printed.
  await waitFor(() => count(/\[REMIX DEV\] \w+ ready/) === 1 && count(/\[worker\] started/) === 1, { timeout: 90_000 })
  expect(printed()).toContain(`[web] Pawtrait is running at ${origin}`)
  expect((await fetch(`${origin}/`)).status).toBe(200)

  // A new route, then a change to it: each is rebuilt and served by a restarted web process.
  const route = path.join(dir, 'app/routes/dev-probe.tsx')
  fs.writeFileSync(route, 'export default function DevProbe() {\n  return <p>probe one</p>\n}\n')
  await waitFor(() => count(/\[REMIX DEV\] \w+ ready/) === 2, { timeout: 60_000 })
  expect(await (await fetch(`${origin}/dev-probe`)).text()).toContain('probe one')
  fs.writeFileSync(route, 'export default function DevProbe() {\n  return <p>probe two</p>\n}\n')
  await waitFor(() => count(/\[REMIX DEV\] \w+ ready/) === 3, { timeout: 60_000 })
  expect(await (await fetch(`${origin}/dev-probe`)).text()).toContain('probe two')
  // The pages listen to remix dev for updates, which the policy lets them reach.
  const page = await fetch(`${origin}/dev-probe`)
  expect(await page.text()).toContain('remixLiveReloadConnect')
  expect(page.headers.get('content-security-policy')).toMatch(/connect-src 'self' ws:\/\/localhost:\d+;/)

  // A file of the domain, which the worker imports: the worker stops and starts again.
  fs.appendFileSync(path.join(dir, 'domain/http-error.server.ts'), '// changed\n')
  await waitFor(() => count(/\[worker\] started/) === 2, { timeout: 60_000 })
  expect(printed()).toContain('[worker] SIGTERM: finishing running jobs')

  dev.kill('SIGTERM')
  expect(await exited).toBe(0)
  expect(printed()).toContain('[dev] stopped')
}, 300_000)
