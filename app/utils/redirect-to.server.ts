import { getEnv } from '#platform/env.server.ts'
import { publicOrigin } from '#platform/public-url.server.ts'

// Longer targets are no page of ours (and would make a header nobody needs).
const MAX_TARGET = 2000

/**
 * A place on this site to go to after signing in (`redirectTo`), as the WHATWG URL parser reads
 * it against the site's origin, the way a browser will: anything that lands elsewhere (absolute
 * URLs, `//host`, `/\host`, `/<tab>/host` — browsers drop tabs and line breaks — or `/.//host`)
 * becomes '/'. The answer is the parser's own path, query and fragment, so it is always a valid
 * header value (a raw line break in one made the answer a 500).
 */
export function safeRedirectPath(to: FormDataEntryValue | string | null | undefined): string {
  if (typeof to !== 'string' || !to.startsWith('/') || to.length > MAX_TARGET) return '/'
  const site = new URL(publicOrigin(getEnv()))
  const lands = (target: string) => new URL(target, site)
  try {
    const url = lands(to)
    const path = url.pathname + url.search + url.hash
    // Read again: `/.//host` is the path `//host`, which a browser reads as another host.
    return url.origin === site.origin && lands(path).origin === site.origin ? path : '/'
  } catch {
    return '/'
  }
}
