import { createHash } from 'node:crypto'
import { createReadableStreamFromReadable } from '@remix-run/node'
import type { ByteRange, MediaStorage } from '#platform/storage.server.ts'
import { isValidMediaKey } from '#platform/storage.server.ts'

/** How /media answers are cached: forever, by anyone (a key never changes its bytes). */
const PUBLIC_FOREVER = 'public, max-age=31536000, immutable'

/**
 * The answer to GET or HEAD /media/<key>: cached forever (a key never changes its bytes), with ETag
 * revalidation, single byte ranges so video players can seek, and `?download=name` for downloads.
 * A private object (a payment screenshot behind its signed URL) passes its own `cacheControl`.
 */
export async function mediaResponse(
  request: Request,
  storage: MediaStorage,
  key: string,
  cacheControl = PUBLIC_FOREVER,
): Promise<Response> {
  const info = isValidMediaKey(key) ? await storage.stat(key) : null
  if (!info) return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain' } })

  const etag = `"${createHash('sha256').update(key).digest('base64url').slice(0, 32)}"`
  const headers = new Headers({
    'Cache-Control': cacheControl,
    ETag: etag,
  })
  if (matchesEtag(request.headers.get('If-None-Match'), etag)) {
    return new Response(null, { status: 304, headers })
  }

  headers.set('Content-Type', info.contentType)
  headers.set('Accept-Ranges', 'bytes')
  const download = new URL(request.url).searchParams.get('download')
  if (download !== null) {
    headers.set('Content-Disposition', `attachment; filename="${safeDownloadName(download, key)}"`)
  }

  // A Range for a since-changed representation (If-Range mismatch) is answered in full.
  const ifRange = request.headers.get('If-Range')
  const rangeHeader = ifRange === null || ifRange === etag ? request.headers.get('Range') : null
  const range = rangeHeader === null ? undefined : parseRange(rangeHeader, info.size)
  if (range === 'unsatisfiable') {
    headers.set('Content-Range', `bytes */${info.size}`)
    return new Response(null, { status: 416, headers })
  }

  const status = range ? 206 : 200
  if (range) headers.set('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`)
  headers.set('Content-Length', String(range ? range.end - range.start + 1 : info.size))
  if (request.method === 'HEAD') return new Response(null, { status, headers })

  // The object may have been deleted between stat and get.
  const object = await storage.get(key, range)
  if (!object) return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain' } })
  return new Response(createReadableStreamFromReadable(object.body), { status, headers })
}

function matchesEtag(ifNoneMatch: string | null, etag: string) {
  if (ifNoneMatch === null) return false
  return ifNoneMatch.split(',').some((tag) => {
    const value = tag.trim()
    return value === '*' || value.replace(/^W\//, '') === etag
  })
}

/**
 * One `bytes=` range (`a-b`, `a-`, `-n`) resolved against the size. A malformed or multi-range
 * header is ignored (undefined: answer the whole object), as RFC 9110 allows.
 */
export function parseRange(header: string, size: number): ByteRange | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match || (match[1] === '' && match[2] === '')) return undefined
  const [first, last] = [match[1], match[2]]

  if (first === '') {
    const suffix = Number(last)
    if (suffix === 0 || size === 0) return 'unsatisfiable'
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(first)
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1)
  if (last !== '' && Number(last) < start) return undefined
  if (start >= size) return 'unsatisfiable'
  return { start, end }
}

/**
 * A file name that is safe inside a quoted Content-Disposition and on any file system: ASCII
 * letters, digits, dot, dash and underscore, ending in the stored object's own extension.
 */
export function safeDownloadName(requested: string, key: string): string {
  const ext = key.slice(key.lastIndexOf('.'))
  const base = requested
    .replace(/^.*[/\\]/, '')
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .slice(0, 100)
    .replace(/^[-.]+|[-.]+$/g, '')
  return `${base || 'download'}${ext}`
}
