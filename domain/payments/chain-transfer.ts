import type { ChainNetwork, VerificationStatus } from '#platform/db-schema.ts'

/**
 * What an on-chain lookup found, and the judgement of it against a payment proof. The chain
 * clients (worker/chains/) translate each API's answer into a ChainLookup with canonical addresses
 * (chain-address.server.ts); `judgeTransfer` alone decides what the result means, so
 * TRON and Ethereum are judged by the same rules.
 */

/** One ERC20/TRC20 Transfer event: the token contract, the recipient and the amount in base units. */
export interface TokenTransfer {
  token: string
  to: string
  units: bigint
}

export type ChainLookup =
  | { found: false }
  | {
      found: true
      /** Why the transaction failed on chain (a revert), or null when it succeeded. */
      failure: string | null
      transfers: TokenTransfer[]
      confirmations: number
      /** Final: TRON solidified, Ethereum at least ETHEREUM_CONFIRMATIONS deep. */
      final: boolean
    }

/** The chain API could not answer (network error, timeout, rate limit, an answer we cannot read). */
export class ChainUnavailableError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ChainUnavailableError'
  }
}

/** What a proof should show on chain: USDT (`token`) to our `wallet`, at least `minimumUnits`. */
export interface Expectation {
  network: ChainNetwork
  wallet: string
  token: string
  minimumUnits: bigint
}

export interface VerificationResult {
  status: VerificationStatus
  network: ChainNetwork
  /** USDT moved, as an exact decimal string with 6 places; null when nothing was found. */
  amountUsd: string | null
  toAddress: string | null
  confirmations: number | null
  detail: string
}

/** USDT has 6 decimals on both networks. */
const USDT_DECIMALS = 6n
const UNITS_PER_USD = 10n ** USDT_DECIMALS

export function usdtUnitsForCents(cents: number): bigint {
  return (BigInt(cents) * UNITS_PER_USD) / 100n
}

function formatUnits(units: bigint): string {
  const whole = units / UNITS_PER_USD
  const fraction = (units % UNITS_PER_USD).toString().padStart(Number(USDT_DECIMALS), '0')
  return `${whole}.${fraction}`
}

const networkNames: Record<ChainNetwork, string> = { tron: 'TRON', ethereum: 'Ethereum' }

export function judgeTransfer(lookup: ChainLookup, expected: Expectation): VerificationResult {
  const network = expected.network
  const base = { network, amountUsd: null, toAddress: null, confirmations: null }
  if (!lookup.found) {
    return {
      ...base,
      status: 'not_found',
      detail: `No such transaction on ${networkNames[network]} yet (unknown, or not yet in a final block)`,
    }
  }
  const confirmations = lookup.confirmations
  if (lookup.failure !== null) {
    return { ...base, confirmations, status: 'mismatch', detail: `The transaction failed on chain: ${lookup.failure}` }
  }
  const usdt = lookup.transfers.filter((transfer) => transfer.token === expected.token)
  if (usdt.length === 0) {
    const other = lookup.transfers[0]
    const detail = other
      ? `Another token was sent (contract ${other.token}), not USDT`
      : 'The transaction moved no USDT'
    return { ...base, confirmations, status: 'mismatch', detail }
  }
  const ours = usdt.filter((transfer) => transfer.to === expected.wallet)
  if (ours.length === 0) {
    return {
      ...base,
      confirmations,
      amountUsd: formatUnits(usdt[0].units),
      toAddress: usdt[0].to,
      status: 'mismatch',
      detail: `The USDT went to another wallet (${usdt[0].to}), not to ours (${expected.wallet})`,
    }
  }
  const received = ours.reduce((sum, transfer) => sum + transfer.units, 0n)
  const found = { ...base, confirmations, amountUsd: formatUnits(received), toAddress: expected.wallet }
  if (received < expected.minimumUnits) {
    return {
      ...found,
      status: 'mismatch',
      detail: `Underpaid: ${formatUnits(received)} USDT received, ${formatUnits(expected.minimumUnits)} due`,
    }
  }
  if (!lookup.final) {
    return {
      ...found,
      status: 'unconfirmed',
      detail: `${formatUnits(received)} USDT received, not final yet (${confirmations} confirmations)`,
    }
  }
  return {
    ...found,
    status: 'confirmed',
    detail: `${formatUnits(received)} USDT received, final (${confirmations} confirmations)`,
  }
}
