import { defineConfig, devices } from '@playwright/test'

/**
 * End-to-end tests drive Debian's Chromium against the built app, started the way `npm start`
 * starts it (embedded PostgreSQL, migrations, web and worker) in a throwaway data folder.
 * E2E_PORT lets several runs share a machine.
 */
const port = Number(process.env.E2E_PORT ?? 3100)
export const e2eAdmin = { email: 'admin@pawtrait.test', password: 'admin-password' }
export const e2eGoogleAuthorizationUrl = `http://127.0.0.1:${port + 1}/authorize`
/** tests/e2e/prints.spec.ts starts the Prodigi fake here, with this key. */
export const e2eProdigi = { port: port + 3, apiKey: 'e2e-prodigi-sandbox-key' }
const dataDir = `tests/.tmp/e2e-${port}`
/** The Stripe fake (tests/fakes/stripe-main.ts), started beside the app on the port after Google's. */
const stripeFake = {
  STRIPE_FAKE_PORT: String(port + 2),
  STRIPE_SECRET_KEY: 'sk_test_e2e_fake_key_0123456789',
  STRIPE_WEBHOOK_SECRET: 'whsec_e2e_fake_secret_0123456789',
  STRIPE_FAKE_WEBHOOK_URL: `http://127.0.0.1:${port}/api/stripe/webhook`,
}

export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? 'list' : [['list']],
  use: {
    baseURL: `http://localhost:${port}`,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-gpu',
      ],
    },
  },
  projects: [
    { name: 'desktop', use: { ...devices['Desktop Chrome'], channel: undefined } },
    { name: 'phone', use: { ...devices['Pixel 7'] }, grep: /@phone/ },
  ],
  webServer: [
    {
      command: 'node tests/fakes/stripe-main.ts',
      port: port + 2,
      reuseExistingServer: false,
      stdout: 'ignore',
      stderr: 'pipe',
      env: stripeFake,
    },
    {
      command: `rm -rf ${dataDir} && node scripts/start.ts`,
      url: `http://localhost:${port}/healthz`,
      timeout: 120_000,
      reuseExistingServer: false,
      // SIGTERM lets scripts/start.ts stop web, worker and its detached PostgreSQL in order.
      gracefulShutdown: { signal: 'SIGTERM', timeout: 30_000 },
      stdout: 'ignore',
      stderr: 'pipe',
      env: {
        PORT: String(port),
        DATA_DIR: dataDir,
        PUBLIC_URL: `http://localhost:${port}`,
        ADMIN_EMAIL: e2eAdmin.email,
        ADMIN_PASSWORD: e2eAdmin.password,
        EMAIL_VERIFICATION: 'off',
        // Every test registers its own users, all from this machine's address.
        REGISTRATIONS_PER_IP_PER_HOUR: '10000',
        WORKER_CONCURRENCY: '2',
        // Runs share the machine: no fixed metrics ports.
        METRICS_PORT: '0',
        WORKER_METRICS_PORT: '0',
        SURPRISE_URL: 'https://example.com/surprise',
        // Google sign-in leaves for this closed port; tests/e2e/csp.spec.ts answers it as the fake.
        GOOGLE_CLIENT_ID: 'e2e-client.apps.googleusercontent.com',
        GOOGLE_CLIENT_SECRET: 'e2e-secret',
        GOOGLE_AUTHORIZATION_URL: e2eGoogleAuthorizationUrl,
        PAYPAL_ME_URL: 'https://paypal.me/pawtrait',
        SOCIAL_LINKS: 'Instagram=https://instagram.com/pawtrait',
        // Payment proofs are checked on chain by the worker: a closed local port keeps e2e offline.
        TRONGRID_API_URL: 'http://127.0.0.1:9',
        ETHERSCAN_API_URL: 'http://127.0.0.1:9/v2/api',
        // Card payments through the Stripe fake: its hosted page pays, then delivers the signed event.
        STRIPE_SECRET_KEY: stripeFake.STRIPE_SECRET_KEY,
        STRIPE_WEBHOOK_SECRET: stripeFake.STRIPE_WEBHOOK_SECRET,
        STRIPE_API_URL: `http://127.0.0.1:${port + 2}`,
        // Print orders go to the Prodigi fake that tests/e2e/prints.spec.ts runs on this port.
        PRODIGI_API_KEY: e2eProdigi.apiKey,
        PRODIGI_API_URL: `http://127.0.0.1:${e2eProdigi.port}/v4.0`,
        PRINT_CALLBACK_SECRET: 'e2e-print-callback-secret',
      },
    },
  ],
})
