import { getEnv } from '#platform/env.server.ts'
import { siteOrigin } from '#app/utils/site-origin.server.ts'

export async function loader({ request }: { request: Request }) {
  const origin = siteOrigin(request, getEnv().PUBLIC_URL)
  // The administrators' pages are not listed: a crawler only ever gets their redirect to /login,
  // and a Disallow line would advertise where they are.
  const lines = ['User-agent: *', 'Allow: /', 'Disallow: /api/', `Sitemap: ${origin}/sitemap.xml`]
  return new Response(lines.join('\n') + '\n', {
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=3600' },
  })
}
