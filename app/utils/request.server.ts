import { getClientAddress } from './client-address.server.ts'

/** The client's IP address, as the web server resolved it (see client-address.server.ts). */
export function getClientIp(request: Request): string {
  return getClientAddress(request)
}
