import type { IncomingHttpHeaders } from 'node:http'

/**
 * Who is asking, for rate limits and analytics. Only the web server knows the TCP peer: it resolves
 * the address once (server/app.ts) and hands it to the app in CLIENT_ADDRESS_HEADER, overwriting
 * anything a client sent under that name. A client's own X-Forwarded-For is never believed (anyone
 * can make one up to reset a limit); Fly-Client-IP is believed only with TRUST_PROXY=fly, because
 * Fly's proxy sets it on every request and replaces a client's.
 */

export const CLIENT_ADDRESS_HEADER = 'x-pawtrait-client-address'

export type ProxyTrust = 'none' | 'fly'

export function resolveClientAddress(
  socketAddress: string | undefined,
  headers: IncomingHttpHeaders,
  trust: ProxyTrust,
): string {
  const flyClientIp = headers['fly-client-ip']
  if (trust === 'fly' && typeof flyClientIp === 'string' && flyClientIp.trim()) return flyClientIp.trim()
  return normalizeAddress(socketAddress)
}

/** An IPv4 peer on a dual-stack socket reads `::ffff:127.0.0.1`; one address has one spelling. */
function normalizeAddress(address: string | undefined) {
  if (!address) return 'unknown'
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice('::ffff:'.length) : address
}

/** The address the web server resolved; 'unknown' for a request that did not come through it. */
export function getClientAddress(request: Request): string {
  return request.headers.get(CLIENT_ADDRESS_HEADER) || 'unknown'
}
