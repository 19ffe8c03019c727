/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ignoredRouteFiles: ['**/.*', '**/*.test.*'],
  serverModuleFormat: 'esm',
  serverPlatform: 'node',
  // Bundled: the app's and worker's subpath imports. Not #platform/*: left external, Node loads it
  // once from source for both server/index.ts and this build (one pool, one logger, one registry).
  // Not remix-auth: v3 and its strategies are CommonJS, which Node imports as is, while bundled
  // into this ESM build their require() calls fail.
  serverDependenciesToBundle: [/^#(app|domain)\//],
  // `npm run dev` (remix dev) watches app/ and these: a change rebuilds and restarts the web process,
  // which loads platform/ and server/ from source.
  watchPaths: ['domain', 'platform', 'server'],
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    // Single fetch changes how loaders serialise; the /api contract is plain JSON, so stay on classic fetches.
    v3_singleFetch: false,
  },
}
