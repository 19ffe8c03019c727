import type { Tx } from '#platform/db.server.ts'
import { grantCredits } from '#domain/credits/credits.server.ts'

/**
 * Gives an order's credits back, once, with the reason in words: the conditional UPDATE claims the
 * refund, and the ledger's credit_transactions_print_refund_once index would refuse a second line
 * anyway. An order whose account was deleted has no one to refund.
 */
export async function refundPrintOrder(tx: Tx, orderId: string, reason: string) {
  const order = await tx
    .updateTable('print_orders')
    .set({ refunded_at: new Date(), problem: reason, updated_at: new Date() })
    .where('id', '=', orderId)
    .where('refunded_at', 'is', null)
    .returning(['user_id', 'credits', 'product_label'])
    .executeTakeFirst()
  if (!order?.user_id) return false
  await grantCredits(tx, {
    userId: order.user_id,
    type: 'earn',
    amount: order.credits,
    description: `Refund of a print order (${order.product_label}): ${reason}`,
    printOrderId: orderId,
  })
  return true
}
