import type { AddressInfo } from 'node:net'
import type { ServerBuild } from '@remix-run/node'
import express from 'express'
import { getLogger } from '#platform/logger.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { currentRequestContext, requestIdFrom, runWithRequestContext } from '#platform/request-context.server.ts'
import { instrumentRoutes, logRequests } from '../../server/request-log.ts'

type Route = ServerBuild['routes'][string]
const route = (id: string, parentId: string | undefined, path: string | undefined, loader = true): Route => ({
  id,
  parentId,
  path,
  index: path === undefined ? true : undefined,
  module: (loader ? { loader: () => id } : {}) as Route['module'],
})

const build = instrumentRoutes({
  routes: {
    root: route('root', undefined, ''),
    'routes/api.async-image.task.$id': route('routes/api.async-image.task.$id', 'root', 'api/async-image/task/:id'),
    'routes/_index': route('routes/_index', 'root', undefined),
    'routes/media.$': route('routes/media.$', 'root', 'media/*'),
  },
} as unknown as ServerBuild)

/** Runs the loaders of the given routes as one request would, answering the route label noted. */
async function labelFor(...ids: string[]) {
  const context = { requestId: 'test' }
  await runWithRequestContext(context, () =>
    Promise.all(ids.map((id) => build.routes[id].module.loader?.({} as never))),
  )
  return (context as { route?: string }).route
}

test('the route label is the pattern of the deepest route that ran, never the URL', async () => {
  expect(await labelFor('routes/api.async-image.task.$id')).toBe('/api/async-image/task/:id')
  expect(await labelFor('root', 'routes/media.$')).toBe('/media/*')
  expect(await labelFor('routes/media.$', 'root')).toBe('/media/*')
  expect(await labelFor('root', 'routes/_index')).toBe('/')
  expect(currentRequestContext()).toBeUndefined()
})

test("Fly's request id is kept when it looks like one; anything else gets a fresh id", () => {
  const fresh = () => 'fresh'
  expect(requestIdFrom('01JD3QZ8K4EXAMPLE-fra', fresh)).toBe('01JD3QZ8K4EXAMPLE-fra')
  expect(requestIdFrom(undefined, fresh)).toBe('fresh')
  expect(requestIdFrom('', fresh)).toBe('fresh')
  expect(requestIdFrom('two words', fresh)).toBe('fresh')
  expect(requestIdFrom('a\nforged log line', fresh)).toBe('fresh')
  expect(requestIdFrom('x'.repeat(129), fresh)).toBe('fresh')
})

test('a live stream is logged but not timed as an answer (it lasts minutes by design)', async () => {
  const metrics = getMetrics()
  const app = express()
  app.use(logRequests(getLogger(), metrics))
  app.get('/stream', (_req, res) => {
    res.setHeader('Content-Type', 'text/event-stream')
    res.end(': bye\n\n')
  })
  app.get('/plain', (_req, res) => void res.send('ok'))
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const observed = async () =>
    (await metrics.httpRequestDuration.get()).values
      .filter((value) => value.metricName === 'http_request_duration_seconds_count')
      .reduce((sum, value) => sum + value.value, 0)
  try {
    const before = await observed()
    await (await fetch(`${origin}/stream`)).text()
    await (await fetch(`${origin}/plain`)).text()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await observed()).toBe(before + 1)
  } finally {
    server.close()
  }
})
