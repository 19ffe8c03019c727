/**
 * One canonical form for wallet addresses, so that a recipient read from the chain and a wallet
 * from the environment compare as plain strings: TRON addresses as base58check T-addresses (the
 * form people copy), Ethereum addresses as lower-case 0x hex (their checksum is only letter case).
 * Base58check comes from the `bs58check` library rather than hand-written code.
 */
import bs58check from 'bs58check'

/** TRON's mainnet address prefix: 0x41 followed by the 20-byte account id. */
const TRON_PREFIX = 0x41
const HEX_20 = /^[0-9a-f]{40}$/i

/** A 20-byte account id (40 hex, as in an event log's topic or address) as a T-address. */
export function tronAddressFromHex(hex20: string): string {
  if (!HEX_20.test(hex20)) throw new Error(`not a 20-byte address: ${hex20}`)
  return bs58check.encode(Buffer.from(`${TRON_PREFIX.toString(16)}${hex20}`, 'hex'))
}

/** A T-address, or 41-prefixed hex, in canonical T-form; null when it is neither. */
export function canonicalTronAddress(address: string): string | null {
  const value = address.trim()
  if (/^41[0-9a-f]{40}$/i.test(value)) return tronAddressFromHex(value.slice(2))
  try {
    const bytes = bs58check.decode(value)
    return bytes.length === 21 && bytes[0] === TRON_PREFIX ? value : null
  } catch {
    return null
  }
}

/** A 0x address in lower case; null when it is not 20 bytes of hex. */
export function canonicalEthereumAddress(address: string): string | null {
  const value = address.trim().toLowerCase()
  return /^0x[0-9a-f]{40}$/.test(value) ? value : null
}

/** The last 20 bytes of a 32-byte log word (an indexed address topic), as 40 hex without 0x. */
export function addressFromWord(word: string): string {
  return word.replace(/^0x/i, '').slice(-40).toLowerCase()
}
