import { isIP } from 'node:net'
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

/** Country code and city of an IP address; nulls when the address is missing, private or not in the database. */
export async function lookupLocation(ip: string | null): Promise<Location> {
  if (!ip || isIP(ip) === 0) return unknown
  try {
    const found = (await loadGeoIp()).lookup(ip)
    return { country: found?.country || null, city: found?.city || null }
  } catch (error) {
    geoip = undefined
    console.error('[geo] lookup failed:', error instanceof Error ? error.message : error)
    return unknown
  }
}
