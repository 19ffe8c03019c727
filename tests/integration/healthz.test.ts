import path from 'node:path'
import { freePort, startEmbeddedPostgres } from '../../scripts/embedded-postgres.ts'

// This file points the app at a PostgreSQL of its own, so it can stop and restart it.
const folder = path.resolve(`tests/.tmp/healthz-${process.pid}`)
const port = await freePort()
let server = await startEmbeddedPostgres(folder, 'healthz', port)
process.env.DATABASE_URL = server.url

const { loader } = await import('#app/routes/healthz.ts')
const { loader: readyz } = await import('#app/routes/readyz.ts')

afterAll(async () => {
  await server.stop()
  const fs = await import('node:fs')
  fs.rmSync(folder, { recursive: true, force: true })
})

test('/healthz stays 200 while the database is away; /readyz answers 503 and recovers when it returns, in the same process', async () => {
  expect((await loader()).status).toBe(200)

  await server.stop()
  const down = await loader()
  expect(down.status).toBe(200)
  expect(await down.text()).toBe('ok')
  const notReady = await readyz()
  expect(notReady.status).toBe(503)
  expect(await notReady.json()).toEqual({ ready: false, checks: { database: 'failed', storage: 'ok' } })

  server = await startEmbeddedPostgres(folder, 'healthz', port)
  const up = await loader()
  expect(up.status).toBe(200)
  expect(await up.text()).toBe('ok')
  const ready = await readyz()
  expect(ready.status).toBe(200)
  expect(await ready.json()).toEqual({ ready: true, checks: { database: 'ok', storage: 'ok' } })
})
