/**
 * URLs lose their query string and fragment (and any user:password@) before they are stored,
 * logged or shown: links in emails and OAuth callbacks carry tokens and codes there
 * (`/auth/callback?token=…`, `/unsubscribe?token=…`), and a log line or a status page is read by
 * more people than the link's owner. Decision 0025.
 */

const QUERY_OR_FRAGMENT = /[?#][\s\S]*$/
const USER_INFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i

/** `url` without its query string, fragment and credentials; anything else about it stays. */
export function withoutQuery(url: string): string {
  return url.replace(QUERY_OR_FRAGMENT, '').replace(USER_INFO, '$1')
}

/** The path of an absolute URL or a path (`/`, when there is none to read). */
export function pathOf(url: string): string {
  try {
    return new URL(url, 'http://localhost').pathname
  } catch {
    return '/'
  }
}

// An absolute URL (scheme://…) or a path that starts a word (`/auth/callback`), followed by its
// query or fragment: the characters up to a space, a quote or an angle bracket. In a JSON line a
// backslash starts an escape; `\"` ends the string, a line break or tab ends it too; any other escape is part of the query.
const URL_WITH_QUERY = /((?:\b[a-z][a-z0-9+.-]*:\/\/|(?<![\w/.-])\/)[^\s"'<>?#\\]*)[?#](?:[^\s"'<>\\]|\\[^"nrt])*/gi
const USER_INFO_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s"'<>/?#@\\]*@/gi

/**
 * `text` (a log line, a message) with every URL in it cut as withoutQuery cuts one. Every log line
 * of the web and the worker passes through it (platform/logger.server.ts).
 */
export function redactUrlsIn(text: string): string {
  // Most lines (every request's) hold neither a query, a fragment nor credentials: spared both scans.
  const queryCut = text.includes('?') || text.includes('#') ? text.replace(URL_WITH_QUERY, '$1') : text
  return queryCut.includes('@') ? queryCut.replace(USER_INFO_IN_TEXT, '$1') : queryCut
}
