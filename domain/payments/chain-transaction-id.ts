import type { PaymentMethod } from '#platform/db-schema.ts'

/**
 * The shape of a transaction id on each USDT network, checked at submission (browser and server)
 * so that a typo is refused at once instead of waiting for an on-chain lookup: a TRON transaction
 * id is 64 hex characters, an Ethereum transaction hash is 0x followed by 64 hex characters.
 */
const shapes: Partial<Record<PaymentMethod, { pattern: RegExp; message: string }>> = {
  usdt_trc20: {
    pattern: /^[0-9a-f]{64}$/i,
    message: 'A USDT (TRC20) transaction ID is 64 hexadecimal characters (0-9, a-f), without 0x',
  },
  usdt_erc20: {
    pattern: /^0x[0-9a-f]{64}$/i,
    message: 'A USDT (ERC20) transaction hash is 0x followed by 64 hexadecimal characters (0-9, a-f)',
  },
}

/** The message for a transaction id of the wrong shape for its method, or null when it fits. */
export function transactionIdProblem(method: PaymentMethod, transactionId: string): string | null {
  const shape = shapes[method]
  return shape && !shape.pattern.test(transactionId) ? shape.message : null
}
