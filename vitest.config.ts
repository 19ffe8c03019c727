import os from 'node:os'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    globals: true,
    include: ['tests/unit/**/*.test.ts', 'tests/integration/**/*.test.ts'],
    globalSetup: ['tests/setup/global-database.ts'],
    setupFiles: ['tests/setup/test-database.ts'],
    pool: 'forks',
    // Vitest's default is one fork fewer than the cores: one on a 2-core machine. Most files wait on
    // PostgreSQL, the worker process or a fake, not the CPU, and each has its own database, so twice
    // the cores run side by side (decision 0048). `--maxWorkers` overrides it.
    maxWorkers: 2 * os.availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
