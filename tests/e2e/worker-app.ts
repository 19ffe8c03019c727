import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'

/**
 * One app per Playwright worker (decision 0048): the built app started the way `npm start` starts it
 * (embedded PostgreSQL, migrations, web and worker) in a throwaway data folder, with the Stripe fake
 * beside it. Worker n takes the ports from E2E_PORT + 10 n: the app's, the closed port Google
 * sign-in leaves for (+1), the Stripe fake's (+2) and the Prodigi fake's that tests/e2e/prints.spec.ts
 * starts (+3), so several workers, and several runs with their own E2E_PORT, share a machine.
 */
const BASE_PORT = Number(process.env.E2E_PORT ?? 3100)
const PORTS_PER_WORKER = 10
const START_TIMEOUT_MS = 120_000
const STOP_TIMEOUT_MS = 30_000

export const e2eAdmin = { email: 'admin@pawtrait.test', password: 'admin-password' }
const prodigiApiKey = 'e2e-prodigi-sandbox-key'

export interface WorkerApp {
  url: string
  dataDir: string
  /** Where "Sign in with Google" leaves for: a port nothing listens on but the page tests/e2e/csp.spec.ts starts there. */
  googleAuthorizationUrl: string
  /** Where the app's print lab is: tests/e2e/prints.spec.ts starts the Prodigi fake there. */
  prodigi: { port: number; apiKey: string }
}

function workerApp(parallelIndex: number): WorkerApp & { port: number; stripePort: number } {
  const port = BASE_PORT + PORTS_PER_WORKER * parallelIndex
  return {
    port,
    stripePort: port + 2,
    url: `http://localhost:${port}`,
    dataDir: `tests/.tmp/e2e-${port}`,
    googleAuthorizationUrl: `http://127.0.0.1:${port + 1}/authorize`,
    prodigi: { port: port + 3, apiKey: prodigiApiKey },
  }
}

function start(script: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const errors: string[] = []
  child.stderr?.on('data', (chunk) => errors.push(String(chunk)))
  return { child, errors }
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  // SIGTERM lets scripts/start.ts stop web, worker and its detached PostgreSQL in order.
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
  await exited
  clearTimeout(timer)
}

/**
 * Polls `url` until it answers (2xx, or any status with `anyStatus`); fails if the process ends first
 * or after START_TIMEOUT_MS.
 */
async function answering(url: string, started: ReturnType<typeof start>, { anyStatus = false } = {}) {
  const deadline = Date.now() + START_TIMEOUT_MS
  for (;;) {
    if (started.child.exitCode !== null) throw new Error(`${url} did not start:\n${started.errors.join('')}`)
    const ok = await fetch(url).then(
      (response) => anyStatus || response.ok,
      () => false,
    )
    if (ok) return
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${START_TIMEOUT_MS} ms`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** Starts worker `parallelIndex`'s Stripe fake and app; answers the app and how to stop both. */
export async function startWorkerApp(parallelIndex: number) {
  const app = workerApp(parallelIndex)
  const stripe = {
    STRIPE_SECRET_KEY: 'sk_test_e2e_fake_key_0123456789',
    STRIPE_WEBHOOK_SECRET: 'whsec_e2e_fake_secret_0123456789',
  }
  fs.rmSync(app.dataDir, { recursive: true, force: true })
  const fake = start('tests/fakes/stripe-main.ts', {
    ...stripe,
    STRIPE_FAKE_PORT: String(app.stripePort),
    STRIPE_FAKE_WEBHOOK_URL: `http://127.0.0.1:${app.port}/api/stripe/webhook`,
  })
  const server = start('scripts/start.ts', {
    PORT: String(app.port),
    DATA_DIR: app.dataDir,
    PUBLIC_URL: app.url,
    ADMIN_EMAIL: e2eAdmin.email,
    ADMIN_PASSWORD: e2eAdmin.password,
    EMAIL_VERIFICATION: 'off',
    // Every test registers its own users, all from this machine's address.
    REGISTRATIONS_PER_IP_PER_HOUR: '10000',
    WORKER_CONCURRENCY: '2',
    // Apps share the machine: no fixed metrics ports.
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    SURPRISE_URL: 'https://example.com/surprise',
    GOOGLE_CLIENT_ID: 'e2e-client.apps.googleusercontent.com',
    GOOGLE_CLIENT_SECRET: 'e2e-secret',
    GOOGLE_AUTHORIZATION_URL: app.googleAuthorizationUrl,
    PAYPAL_ME_URL: 'https://paypal.me/pawtrait',
    SOCIAL_LINKS: 'Instagram=https://instagram.com/pawtrait',
    // Payment proofs are checked on chain by the worker: a closed local port keeps e2e offline.
    TRONGRID_API_URL: 'http://127.0.0.1:9',
    ETHERSCAN_API_URL: 'http://127.0.0.1:9/v2/api',
    // Card payments through the Stripe fake: its hosted page pays, then delivers the signed event.
    ...stripe,
    STRIPE_API_URL: `http://127.0.0.1:${app.stripePort}`,
    // Print orders go to the Prodigi fake that tests/e2e/prints.spec.ts runs on this port.
    PRODIGI_API_KEY: app.prodigi.apiKey,
    PRODIGI_API_URL: `http://127.0.0.1:${app.prodigi.port}/v4.0`,
    PRINT_CALLBACK_SECRET: 'e2e-print-callback-secret',
  })
  const stopBoth = () => Promise.all([stop(server.child), stop(fake.child)])
  try {
    await answering(`http://127.0.0.1:${app.stripePort}/`, fake, { anyStatus: true })
    await answering(`${app.url}/healthz`, server)
  } catch (error) {
    await stopBoth()
    throw error
  }
  return {
    app: {
      url: app.url,
      dataDir: app.dataDir,
      googleAuthorizationUrl: app.googleAuthorizationUrl,
      prodigi: app.prodigi,
    },
    stop: stopBoth,
  }
}
