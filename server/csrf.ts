import type { RequestHandler } from 'express'

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * CSRF protection for cookie sessions: a state-changing request must come from our own origin.
 * Browsers send Origin on every cross-origin POST/PUT/DELETE (and Sec-Fetch-Site where supported);
 * API clients that send the token in a header carry no ambient credentials and are not affected.
 */
export function isCrossSiteRequest(
  method: string,
  headers: { origin?: string; host?: string; 'sec-fetch-site'?: string; cookie?: string },
  publicUrl?: string,
) {
  if (safeMethods.has(method.toUpperCase())) return false
  const fetchSite = headers['sec-fetch-site']
  if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') return true
  const origin = headers.origin
  if (!origin || origin === 'null') return Boolean(origin) && Boolean(headers.cookie)
  let originHost: string
  try {
    originHost = new URL(origin).host
  } catch {
    return true
  }
  const allowed = new Set([headers.host, publicUrl ? new URL(publicUrl).host : undefined])
  return !allowed.has(originHost)
}

export function rejectCrossSiteRequests(publicUrl?: string, exemptPaths: string[] = []): RequestHandler {
  return (req, res, next) => {
    if (
      exemptPaths.includes(req.path) ||
      !isCrossSiteRequest(req.method, req.headers as Record<string, string>, publicUrl)
    )
      return next()
    res.status(403).json({ message: 'Cross-site request refused' })
  }
}
