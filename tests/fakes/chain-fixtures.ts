/**
 * What the chain fakes (TronGrid, Etherscan) hold: transactions made of Transfer events, with
 * accounts as 20-byte hex (40 characters, no 0x), the form both chains put in their event logs.
 */
import { randomBytes } from 'node:crypto'
import bs58check from 'bs58check'

export interface FakeTransfer {
  /** The token contract that emitted the event. */
  token: string
  from: string
  to: string
  /** Base units (USDT: 6 decimals). */
  units: bigint
}

export interface FakeChainTransaction {
  /** The block it was mined in; null while it waits in the mempool (Ethereum). */
  blockNumber: number | null
  success: boolean
  transfers: FakeTransfer[]
}

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_EVENT = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'

/** A 32-byte ABI word, 64 hex characters, for an address or an amount. */
export function word(hexValue: string): string {
  return hexValue.padStart(64, '0')
}

export const randomAccount = () => randomBytes(20).toString('hex')
export const randomHash = () => randomBytes(32).toString('hex')

/** The base58check T-address of a 20-byte TRON account (0x41 prefix), as wallets show it. */
export function tronAddress(account: string): string {
  return bs58check.encode(Buffer.from(`41${account}`, 'hex'))
}

/** USDT's TRC20 contract: TronScan lists TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t as 41a614f8…d13c. */
export const TRON_USDT = {
  base58: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  account: 'a614f803b6fd780986a42c78ec9c7f77e6ded13c',
}
/** USDT's ERC20 contract, 0xdAC17F958D2ee523a2206206994597C13D831ec7. */
export const ETHEREUM_USDT = {
  checksummed: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
  account: 'dac17f958d2ee523a2206206994597c13d831ec7',
}
