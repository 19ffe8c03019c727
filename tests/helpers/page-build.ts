import type { ServerBuild } from '@remix-run/node'
import * as entryServer from '#app/entry.server.tsx'
import * as root from '#app/root.tsx'
import { apiBuild } from './web-server.ts'

type RouteModule = ServerBuild['routes'][string]['module']

/**
 * The /api build of web-server.ts plus the real root, entry.server and the given page or resource
 * routes (`{ 'routes/contact': { path: 'contact', module } }`), so that startWebServer serves and
 * renders them as the built app does, without `remix build`.
 */
export async function pageBuild(pages: Record<string, { path: string; module: unknown }>): Promise<ServerBuild> {
  const build = await apiBuild()
  const pageRoutes = Object.fromEntries(
    Object.entries(pages).map(([id, { path, module }]) => [
      id,
      { id, parentId: 'root', path, module: module as RouteModule },
    ]),
  )
  const manifestRoute = (id: string, path: string, parentId?: string) => ({
    id,
    path,
    parentId,
    module: `/build/${id}.js`,
    imports: [],
    hasLoader: true,
    hasAction: false,
    hasClientLoader: false,
    hasClientAction: false,
    hasErrorBoundary: id === 'root',
  })
  return {
    ...build,
    routes: { ...build.routes, root: { id: 'root', path: '', module: root }, ...pageRoutes },
    entry: { module: entryServer },
    assets: {
      ...build.assets,
      entry: { module: '/build/entry.client.js', imports: [] },
      routes: {
        root: manifestRoute('root', ''),
        ...Object.fromEntries(Object.entries(pages).map(([id, { path }]) => [id, manifestRoute(id, path, 'root')])),
      },
    },
  } as unknown as ServerBuild
}
