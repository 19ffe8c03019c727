import type { PublicVerification } from '#domain/payments/payment-verification.server.ts'

/**
 * A payment proof's on-chain check at a glance (/payment-review): a coloured badge with the
 * status, then what the chain showed and when it was checked. Plain markup: works without JS.
 */
const labels: Record<PublicVerification['status'], string> = {
  confirmed: 'Confirmed on chain',
  unconfirmed: 'Not final yet',
  mismatch: 'Mismatch',
  not_found: 'Not found on chain',
  unavailable: 'Check unavailable',
  manual: 'Check by hand',
}

export function VerificationBadge({ verification }: { verification: PublicVerification }) {
  const checked = verification.checkedAt ? `${verification.checkedAt.slice(0, 16).replace('T', ' ')} UTC` : null
  return (
    <div className="verification">
      <span className={`verification-badge ${verification.status}`}>{labels[verification.status]}</span>
      <span className="verification-detail">{verification.detail}</span>
      {verification.toAddress || checked ? (
        <span className="verification-facts muted">
          {verification.amountUsd !== null ? `${verification.amountUsd} USDT` : null}
          {verification.toAddress ? ` to ${verification.toAddress}` : null}
          {checked ? ` · checked ${checked}` : null}
        </span>
      ) : null}
    </div>
  )
}
