import http from 'node:http'
import { startWebProcess } from '#tests/helpers/web-process.ts'

// The absolute URLs the site gives out come from PUBLIC_URL, else the address it listens on
// (http://localhost:PORT) — never from the request's Host or X-Forwarded-Host, which anyone can
// send and which robots.txt and the sitemap would then serve from public caches for an hour.

const google = {
  GOOGLE_CLIENT_ID: 'public-url.apps.googleusercontent.com',
  GOOGLE_CLIENT_SECRET: 'secret',
  TRUST_PROXY: 'fly',
}
const webs: Awaited<ReturnType<typeof startWebProcess>>[] = []
afterAll(() => Promise.all(webs.map((web) => web.stop())))

/** A GET with the Host and X-Forwarded-Host an attacker picks (fetch would not send that Host). */
function getAs(origin: string, path: string) {
  return new Promise<{ status: number; location: string; body: string }>((resolve, reject) => {
    const request = http.get(
      `${origin}${path}`,
      { headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' } },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk) => (body += chunk))
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, location: response.headers.location ?? '', body }),
        )
      },
    )
    request.on('error', reject)
  })
}

async function absoluteUrls(origin: string) {
  const robots = await getAs(origin, '/robots.txt')
  const sitemap = await getAs(origin, '/sitemap.xml')
  const google = await getAs(origin, '/api/auth/google')
  expect([robots.status, sitemap.status, google.status]).toEqual([200, 200, 302])
  return {
    robots: /^Sitemap: (.*)$/m.exec(robots.body)?.[1],
    sitemap: [...sitemap.body.matchAll(/<loc>(.*?)<\/loc>/g)].map((match) => match[1]),
    googleCallback: new URL(google.location).searchParams.get('redirect_uri'),
    all: robots.body + sitemap.body + google.location,
  }
}

test('with PUBLIC_URL, robots.txt, the sitemap and the Google callback name it, whatever the Host', async () => {
  const web = await startWebProcess({ ...google, PUBLIC_URL: 'https://pawtrait.example' })
  webs.push(web)
  const urls = await absoluteUrls(web.origin)
  expect(urls.robots).toBe('https://pawtrait.example/sitemap.xml')
  expect(urls.sitemap).toContain('https://pawtrait.example/inspiration')
  expect(urls.googleCallback).toBe('https://pawtrait.example/api/auth/google/callback')
  expect(urls.all).not.toContain('evil.example')
})

test('without PUBLIC_URL (outside production) they name this machine at PORT, never the Host', async () => {
  const web = await startWebProcess({ ...google, PUBLIC_URL: '', PORT: '4321' })
  webs.push(web)
  const urls = await absoluteUrls(web.origin)
  expect(urls.robots).toBe('http://localhost:4321/sitemap.xml')
  expect(urls.sitemap.every((url) => url.startsWith('http://localhost:4321/'))).toBe(true)
  expect(urls.googleCallback).toBe('http://localhost:4321/api/auth/google/callback')
  expect(urls.all).not.toContain('evil.example')
})
