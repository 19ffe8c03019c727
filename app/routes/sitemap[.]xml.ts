import { getEnv } from '#platform/env.server.ts'
import { publicOrigin } from '#platform/public-url.server.ts'
import { getDb } from '#platform/db.server.ts'
import { listListedSharePages, sharePagePath } from '#domain/sharing/share-pages.server.ts'

/** The public pages worth indexing; account and admin pages stay out. */
const publicPaths = ['/', '/inspiration', '/generate', '/contact', '/login', '/register']

// Listed URLs come from PUBLIC_URL, never from the request's Host: the answer is cached publicly.
export async function loader() {
  const origin = publicOrigin(getEnv())
  // Share pages whose owners ticked "let search engines list it" (decision 0037).
  const shared = (await listListedSharePages(getDb())).map((page) => sharePagePath(page.slug))
  const urls = [...publicPaths, ...shared].map((path) => `  <url><loc>${origin}${path}</loc></url>`).join('\n')
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`
  return new Response(body, {
    headers: { 'Content-Type': 'application/xml; charset=utf-8', 'Cache-Control': 'public, max-age=3600' },
  })
}
