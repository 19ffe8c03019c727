import type { ServerBuild } from '@remix-run/node'
import { currentRequestContext, requestIdFrom, runWithRequestContext } from '#platform/request-context.server.ts'
import { instrumentRoutes } from '../../server/request-log.ts'

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
