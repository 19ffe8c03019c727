import { getEnv } from '#platform/env.server.ts'
import { publicOrigin } from '#platform/public-url.server.ts'

/** The public pages worth indexing; account and admin pages stay out. */
const publicPaths = ['/', '/inspiration', '/generate', '/contact', '/login', '/register']

// Listed URLs come from PUBLIC_URL, never from the request's Host: the answer is cached publicly.
export async function loader() {
  const origin = publicOrigin(getEnv())
  const urls = publicPaths.map((path) => `  <url><loc>${origin}${path}</loc></url>`).join('\n')
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`
  return new Response(body, {
    headers: { 'Content-Type': 'application/xml; charset=utf-8', 'Cache-Control': 'public, max-age=3600' },
  })
}
