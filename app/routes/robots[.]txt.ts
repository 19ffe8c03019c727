import { getEnv } from '#platform/env.server.ts'
import { requestOrigin } from '#platform/public-url.server.ts'

export async function loader({ request }: { request: Request }) {
  const origin = requestOrigin(request, getEnv())
  // The administrators' pages are not listed: a crawler only ever gets their redirect to /login,
  // and a Disallow line would advertise where they are.
  const lines = ['User-agent: *', 'Allow: /', 'Disallow: /api/', `Sitemap: ${origin}/sitemap.xml`]
  return new Response(lines.join('\n') + '\n', {
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=3600' },
  })
}
