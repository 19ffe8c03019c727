/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ignoredRouteFiles: ['**/.*', '**/*.test.*'],
  serverModuleFormat: 'esm',
  serverPlatform: 'node',
  // ESM-only dependencies used by server code.
  serverDependenciesToBundle: [/^remix-auth/, /^#(app|worker)\//],
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    // Single fetch changes how loaders serialise; the /api contract is plain JSON, so stay on classic fetches.
    v3_singleFetch: false,
  },
}
