// `npm run bench`: every benchmark in one run, against a real PostgreSQL (embedded unless
// DATABASE_URL names a server) and the built app (run `npm run build` first). Prints one table
// of figures. `npm run bench -- pages queue` runs only the named benchmarks.
import path from 'node:path'
import { startEmbeddedPostgres } from '../scripts/embedded-postgres.ts'
import { benchAnalytics } from './analytics.ts'
import { benchAnalyticsRollups } from './analytics-rollups.ts'
import { benchCardWebhooks } from './card-webhooks.ts'
import { benchQueue, benchTaskReadMetrics, benchTaskReads, benchUploadMemory } from './generation.ts'
import { benchFailover } from './failover.ts'
import { benchForgotPassword } from './forgot-password.ts'
import { benchLiveUpdates } from './live-updates.ts'
import { scratchDatabase } from './lib.ts'
import { benchLighthouse } from './lighthouse.ts'
import { benchOutage } from './outage.ts'
import { benchPages } from './pages.ts'
import { benchPhotoCheck } from './photo-check.ts'
import { benchProviderBound } from './providers.ts'
import { benchTitle } from './title.ts'
import { benchUpscale } from './upscale.ts'
import { benchUpscaleSoak } from './upscale-soak.ts'
import { benchVariants } from './variants.ts'

type Bench = (database: Awaited<ReturnType<typeof scratchDatabase>>) => Promise<Record<string, number | string>>

const benches: Array<[string, Bench]> = [
  ['task-reads', benchTaskReads],
  ['task-read-metrics', benchTaskReadMetrics],
  ['queue', benchQueue],
  ['upload-memory', benchUploadMemory],
  ['analytics', benchAnalytics],
  ['analytics-rollups', benchAnalyticsRollups],
  ['pages', benchPages],
  ['provider-bound', benchProviderBound],
  ['forgot-password', benchForgotPassword],
  ['lighthouse', benchLighthouse],
  ['live-updates', benchLiveUpdates],
  ['outage', benchOutage],
  ['photo-check', benchPhotoCheck],
  ['variants', benchVariants],
  ['failover', benchFailover],
  ['upscale', benchUpscale],
  ['upscale-soak', benchUpscaleSoak],
  ['card-webhooks', benchCardWebhooks],
  ['title', benchTitle],
]

async function main() {
  let serverUrl: string
  let stopServer = async () => {}
  if (process.env.DATABASE_URL) {
    serverUrl = process.env.DATABASE_URL.replace(/\/[^/]*$/, '')
  } else {
    const server = await startEmbeddedPostgres(path.resolve(`.data/bench-postgres`), 'postgres')
    serverUrl = server.serverUrl
    stopServer = server.stop
  }

  const only = process.argv.slice(2)
  const results: Array<[string, string, number | string]> = []
  try {
    for (const [name, bench] of benches) {
      if (only.length > 0 && !only.includes(name)) continue
      console.log(`[bench] ${name}...`)
      const database = await scratchDatabase(serverUrl, `pawtrait_bench_${name.replaceAll('-', '_')}`)
      try {
        for (const [metric, value] of Object.entries(await bench(database))) results.push([name, metric, value])
      } finally {
        await database.drop()
      }
    }
  } finally {
    await stopServer()
  }
  console.log('')
  console.table(results.map(([bench, metric, value]) => ({ bench, metric, value })))
}

await main()
