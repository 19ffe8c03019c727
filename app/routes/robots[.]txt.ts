import { getEnv } from '#platform/env.server.ts'
import { publicOrigin } from '#platform/public-url.server.ts'

// Listed URLs come from PUBLIC_URL, never from the request's Host: the answer is cached publicly.
export async function loader() {
  const origin = publicOrigin(getEnv())
  // The administrators' pages are not listed: a crawler only ever gets their redirect to /login,
  // and a Disallow line would advertise where they are.
  const lines = ['User-agent: *', 'Allow: /', 'Disallow: /api/', `Sitemap: ${origin}/sitemap.xml`]
  return new Response(lines.join('\n') + '\n', {
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=3600' },
  })
}
