import type { ChainNetwork, PaymentProof } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { canonicalEthereumAddress, canonicalTronAddress } from '#domain/payments/chain-address.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import {
  ChainUnavailableError,
  judgeTransfer,
  usdtUnitsForCents,
  type ChainLookup,
  type Expectation,
  type VerificationResult,
} from '#domain/payments/chain-transfer.ts'
import { reviewPaymentProof } from '#domain/payments/payments.server.ts'
import { isCheckedOnChain, saveVerification } from '#domain/payments/payment-verification.server.ts'

/**
 * One on-chain check of a USDT payment proof, as the verify_payment job runs it: look the
 * transaction up, judge it, store the result, approve it when PAYMENT_AUTO_APPROVE is on, and say
 * when to look again. Approval goes through reviewPaymentProof, the manual path, so the ledger
 * entry, the email and the exactly-once guarantees are the same.
 */

export type LookupTransaction = (network: ChainNetwork, transactionId: string) => Promise<ChainLookup>

export interface CheckRequest {
  proofId: string
  /** Not-found and not-final transfers are checked again every minute until then. */
  watchUntil: string
  /** Chain API failures in a row so far (the backoff grows with them). */
  failures: number
}

export interface CheckOutcome {
  result: VerificationResult
  approved: boolean
  /** The next check, or null when the result is settled (or the retries are spent). */
  next: { runAt: Date; failures: number } | null
}

const RECHECK_MS = 60_000
/** After an outage the check is retried this many times, 1, 2, 4 … minutes apart, at most an hour (about 3 h in all). */
export const MAX_FAILURES = 8
const MAX_BACKOFF_MS = 60 * 60_000

export const ON_CHAIN_APPROVAL_NOTE = 'Approved automatically: the transfer was confirmed on chain'

/** Checks a pending USDT proof; null when there is nothing to check (gone, reviewed, or PayPal). */
export async function checkPaymentProof(
  db: DB,
  request: CheckRequest,
  lookup: LookupTransaction,
): Promise<CheckOutcome | null> {
  const proof = await db.selectFrom('payment_proofs').selectAll().where('id', '=', request.proofId).executeTakeFirst()
  if (!proof || proof.status !== 'pending' || !isCheckedOnChain(proof.payment_method)) return null

  const expected = expectationFor(proof)
  if (typeof expected === 'string') {
    const result = unavailable(networkOf(proof), expected)
    await saveVerification(db, proof.id, result)
    return { result, approved: false, next: null }
  }
  let result: VerificationResult
  try {
    result = judgeTransfer(await lookup(expected.network, proof.transaction_id), expected)
  } catch (error) {
    if (!(error instanceof ChainUnavailableError)) throw error
    result = unavailable(expected.network, error.message)
  }
  if (result.status === 'confirmed' && (await creditedElsewhere(db, proof))) result = alreadyCredited(result)
  await saveVerification(db, proof.id, result)

  const approved = result.status === 'confirmed' && getEnv().PAYMENT_AUTO_APPROVE === 'on'
  if (approved && !(await approveOnChain(db, proof, result))) return { result, approved: false, next: null }
  return { result, approved, next: nextCheck(result, request) }
}

function networkOf(proof: PaymentProof): ChainNetwork {
  return proof.payment_method === 'usdt_trc20' ? 'tron' : 'ethereum'
}

/** Our wallet and the USDT contract in canonical form; a message when the configuration lacks them. */
function expectationFor(proof: PaymentProof): Expectation | string {
  const env = getEnv()
  const network = networkOf(proof)
  const [walletSetting, tokenSetting, canonical] =
    network === 'tron'
      ? (['USDT_TRC20_ADDRESS', 'USDT_TRC20_CONTRACT', canonicalTronAddress] as const)
      : (['USDT_ERC20_ADDRESS', 'USDT_ERC20_CONTRACT', canonicalEthereumAddress] as const)
  const wallet = canonical(env[walletSetting])
  const token = canonical(env[tokenSetting])
  if (!wallet) return `${walletSetting} is not set to a valid address, so the transfer cannot be checked`
  if (!token) return `${tokenSetting} is not a valid address, so the transfer cannot be checked`
  return { network, wallet, token, minimumUnits: usdtUnitsForCents(proof.amount_cents) }
}

function unavailable(network: ChainNetwork, detail: string): VerificationResult {
  return { status: 'unavailable', network, amountUsd: null, toAddress: null, confirmations: null, detail }
}

const ALREADY_CREDITED = 'This transaction has already been credited on another payment proof'

function alreadyCredited(result: VerificationResult): VerificationResult {
  return { ...result, status: 'mismatch', detail: ALREADY_CREDITED }
}

/** Another approved proof with the same hash (the comparison payment_proofs_credited_once makes). */
async function creditedElsewhere(db: DB, proof: PaymentProof) {
  const normalized = proof.transaction_id.replace(/^0x/i, '').toLowerCase()
  const row = await db
    .selectFrom('payment_proofs')
    .select('id')
    .where('status', '=', 'approved')
    .where('id', '!=', proof.id)
    .where((eb) =>
      eb(
        eb.fn('lower', [eb.fn('regexp_replace', ['transaction_id', eb.val('^0x'), eb.val(''), eb.val('i')])]),
        '=',
        normalized,
      ),
    )
    .executeTakeFirst()
  return Boolean(row)
}

/**
 * Approves through the manual path with the system as reviewer. Losing a race (a reviewer approved
 * or rejected first, or the hash was credited on another proof meanwhile) answers 409: nothing is
 * credited twice, and the proof keeps the outcome that won.
 */
async function approveOnChain(db: DB, proof: PaymentProof, result: VerificationResult) {
  try {
    await reviewPaymentProof(db, {
      proofId: proof.id,
      reviewer: null,
      approved: true,
      reason: `${ON_CHAIN_APPROVAL_NOTE} (${result.detail}).`,
    })
    return true
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 409) throw error
    if (error.message.includes('credited')) await saveVerification(db, proof.id, alreadyCredited(result))
    return false
  }
}

function nextCheck(result: VerificationResult, request: CheckRequest): CheckOutcome['next'] {
  const now = Date.now()
  if (result.status === 'unavailable') {
    const failures = request.failures + 1
    if (failures > MAX_FAILURES) return null
    return { runAt: new Date(now + Math.min(RECHECK_MS * 2 ** (failures - 1), MAX_BACKOFF_MS)), failures }
  }
  if (result.status === 'not_found' || result.status === 'unconfirmed') {
    const runAt = new Date(now + RECHECK_MS)
    return runAt.getTime() <= Date.parse(request.watchUntil) ? { runAt, failures: 0 } : null
  }
  return null
}
