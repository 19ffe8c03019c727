import { BlockList, isIP } from 'node:net'
import type { Lookup } from 'geoip-lite'

export interface Location {
  country: string | null
  city: string | null
}

type GeoIp = { lookup(ip: string): Lookup | null }

let geoip: Promise<GeoIp> | undefined

/**
 * geoip-lite reads its offline database (~150 MB, close to a second) synchronously when imported,
 * so it is loaded on first use, off the request path, rather than in every process that imports this.
 */
function loadGeoIp(): Promise<GeoIp> {
  geoip ??= import('geoip-lite').then((module) => (module as unknown as { default: GeoIp }).default)
  return geoip
}

const unknown: Location = { country: null, city: null }

// Addresses no geolocation database places: loopback, private, shared (CGNAT) and link-local ranges.
const unplaceable = new BlockList()
for (const [network, prefix] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
] as const)
  unplaceable.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  unplaceable.addSubnet(network, prefix, 'ipv6')

/** Whether a geolocation database could place the address (a valid, public one). */
export function isPlaceable(ip: string) {
  const address = ip.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')
  const family = isIP(address)
  return family !== 0 && !unplaceable.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/**
 * Country code and city of an IP address; nulls when the address is missing, private or not in the
 * database. A private address never loads the database (about 100 MB of the web's memory).
 */
export async function lookupLocation(ip: string | null): Promise<Location> {
  if (!ip || !isPlaceable(ip)) return unknown
  try {
    const found = (await loadGeoIp()).lookup(ip)
    return { country: found?.country || null, city: found?.city || null }
  } catch (error) {
    geoip = undefined
    console.error('[geo] lookup failed:', error instanceof Error ? error.message : error)
    return unknown
  }
}
