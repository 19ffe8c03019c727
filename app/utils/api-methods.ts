import { json } from '@remix-run/node'

/**
 * The methods an /api route's action takes, declared once as the route's Remix `handle`: the web
 * server answers any other method with 405 and `Allow` before the route runs (server/api-router.ts),
 * and the action checks it again for callers that do not come through the server (tests).
 */
export function apiMethods(...methods: string[]) {
  return { methods }
}

export function requireMethod(request: Request, handle: { methods: string[] }) {
  if (handle.methods.includes(request.method)) return
  const allow = handle.methods.join(', ')
  throw json({ message: `Use ${handle.methods.join(' or ')}` }, { status: 405, headers: { Allow: allow } })
}
