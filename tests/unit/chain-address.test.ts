import {
  addressFromWord,
  canonicalEthereumAddress,
  canonicalTronAddress,
  tronAddressFromHex,
} from '#domain/payments/chain-address.server.ts'

// USDT's TRC20 contract as TronScan shows it, in both forms.
const USDT_BASE58 = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'
const USDT_HEX = '41a614f803b6fd780986a42c78ec9c7f77e6ded13c'

describe('TRON addresses', () => {
  test('a 20-byte account id from an event log becomes its T-address (0x41 prefix, base58check)', () => {
    expect(tronAddressFromHex(USDT_HEX.slice(2))).toBe(USDT_BASE58)
    expect(tronAddressFromHex(USDT_HEX.slice(2).toUpperCase())).toBe(USDT_BASE58)
  })

  test('a T-address and 41-prefixed hex have the same canonical form', () => {
    expect(canonicalTronAddress(USDT_BASE58)).toBe(USDT_BASE58)
    expect(canonicalTronAddress(` ${USDT_HEX} `)).toBe(USDT_BASE58)
  })

  test('a wrong checksum, another prefix or garbage is not an address', () => {
    expect(canonicalTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toBeNull()
    expect(canonicalTronAddress('1BoatSLRHtKNngkdXEeobR76b53LETtpyT')).toBeNull()
    expect(canonicalTronAddress('')).toBeNull()
    expect(() => tronAddressFromHex('41a614')).toThrow()
  })

  test('the address in an indexed topic is its last 20 bytes', () => {
    expect(addressFromWord(`000000000000000000000000${USDT_HEX.slice(2)}`)).toBe(USDT_HEX.slice(2))
    expect(addressFromWord(`0x000000000000000000000000${USDT_HEX.slice(2).toUpperCase()}`)).toBe(USDT_HEX.slice(2))
  })
})

describe('Ethereum addresses', () => {
  test('compare in lower case; anything but 20 bytes of hex is refused', () => {
    expect(canonicalEthereumAddress('0xdAC17F958D2ee523a2206206994597C13D831ec7')).toBe(
      '0xdac17f958d2ee523a2206206994597c13d831ec7',
    )
    expect(canonicalEthereumAddress('dac17f958d2ee523a2206206994597c13d831ec7')).toBeNull()
    expect(canonicalEthereumAddress('0xdac17f958d2ee523a2206206994597c13d831e')).toBeNull()
  })
})
