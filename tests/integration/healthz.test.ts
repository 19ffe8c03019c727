import path from 'node:path'
import { freePort, startEmbeddedPostgres } from '../../scripts/embedded-postgres.ts'

// This file points the app at a PostgreSQL of its own, so it can stop and restart it.
const folder = path.resolve(`tests/.tmp/healthz-${process.pid}`)
const port = await freePort()
let server = await startEmbeddedPostgres(folder, 'healthz', port)
process.env.DATABASE_URL = server.url

const { loader } = await import('#app/routes/healthz.ts')

afterAll(async () => {
  await server.stop()
  const fs = await import('node:fs')
  fs.rmSync(folder, { recursive: true, force: true })
})

test('/healthz fails while the database is away and recovers when it returns, in the same process', async () => {
  expect((await loader()).status).toBe(200)

  await server.stop()
  const down = await loader()
  expect(down.status).toBe(503)
  expect(await down.text()).toBe('database unavailable')

  server = await startEmbeddedPostgres(folder, 'healthz', port)
  const up = await loader()
  expect(up.status).toBe(200)
  expect(await up.text()).toBe('ok')
})
