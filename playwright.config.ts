import os from 'node:os'
import { defineConfig, devices } from '@playwright/test'

/**
 * End-to-end tests drive Debian's Chromium against the built app. Each Playwright worker starts its
 * own app and Stripe fake on ports from E2E_PORT (tests/e2e/worker-app.ts, decision 0048), so
 * workers, and several runs that each have their own E2E_PORT, share a machine. One worker a core;
 * `--workers=N` to change it.
 */
export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: os.availableParallelism(),
  retries: 0,
  reporter: process.env.CI ? 'list' : [['list']],
  use: {
    trace: { mode: 'retain-on-failure', screenshots: false },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell',
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
})
