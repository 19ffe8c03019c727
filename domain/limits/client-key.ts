import { isIPv4, isIPv6 } from 'node:net'

/**
 * Which client a per-address limit counts. An IPv4 address is one client. An IPv6 /64 is one
 * client too: it is the smallest network a provider hands a home or a phone, and its owner can
 * take any of its 2^64 addresses at will, so counting full IPv6 addresses let one machine reset
 * every limit by changing address (issue 30). An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`)
 * is that IPv4 address. Every per-address limit and the addresses remembered for sign-in go
 * through clientLimitKey, and only through it.
 */

/** The limit key of a client address: the IPv4 address, an IPv6 address's /64, or the input as it came. */
export function clientLimitKey(address: string): string {
  const ipv6 = ipv6Groups(address)
  if (!ipv6) return address
  return mappedIPv4(ipv6) ?? networkKey(ipv6, 64)
}

/**
 * The /48 an IPv6 client is in (a site: what a provider gives one customer at most), for the
 * limits that also count a wider network; null for IPv4, where no wider count applies.
 */
export function siteLimitKey(address: string): string | null {
  const ipv6 = ipv6Groups(address)
  if (!ipv6 || mappedIPv4(ipv6)) return null
  return networkKey(ipv6, 48)
}

/** The eight 16-bit groups of an IPv6 address (a zone index dropped), or null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  const plain = address.trim().replace(/%.*$/, '')
  if (isIPv4(plain) || !isIPv6(plain)) return null
  // A trailing dotted quad (::ffff:192.0.2.1) is the last two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(plain)
  const hex = dotted
    ? plain.slice(0, dotted.index) +
      [(Number(dotted[1]) << 8) | Number(dotted[2]), (Number(dotted[3]) << 8) | Number(dotted[4])]
        .map((group) => group.toString(16))
        .join(':')
    : plain
  const [head, tail] = hex.split('::')
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : [])
  const front = parse(head)
  const back = parse(tail)
  const zeros = tail === undefined ? [] : new Array<number>(8 - front.length - back.length).fill(0)
  return [...front, ...zeros, ...back]
}

function mappedIPv4(groups: number[]): string | null {
  if (groups.slice(0, 5).some((group) => group !== 0) || groups[5] !== 0xffff) return null
  return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.')
}

/** `2001:db8:1:2::/64`: the network's groups in their shortest spelling. */
function networkKey(groups: number[], prefixLength: 48 | 64): string {
  return `${groups
    .slice(0, prefixLength / 16)
    .map((group) => group.toString(16))
    .join(':')}::/${prefixLength}`
}
