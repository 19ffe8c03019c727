import type { DB, Tx } from '#platform/db.server.ts'

/**
 * A user's print orders in their own data (issue 39, item 8): the export lists them with their
 * recipients; deleting the account removes the recipients and the pictures, and keeps the rows
 * (user_id set null by the foreign key) for accounting, as payment proofs are kept.
 */

export async function exportedPrintOrders(db: DB, userId: string) {
  const rows = await db
    .selectFrom('print_orders')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .execute()
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    product: { sku: row.sku, label: row.product_label, attributes: row.attributes },
    copies: row.copies,
    shippingMethod: row.shipping_method,
    credits: row.credits,
    labCost: { items: row.items_cost, shipping: row.shipping_cost, currency: row.currency },
    recipient: row.recipient,
    labOrderId: row.lab_order_id,
    shipments: row.shipments,
    problem: row.problem,
    refunded: row.refunded_at !== null,
    taskId: row.task_id,
    versionIndex: row.version_index,
    createdAt: row.created_at.toISOString(),
  }))
}

/** Removes the recipients and picture keys of the user's orders; answers the keys to delete from storage. */
export async function anonymisePrintOrdersOf(tx: Tx, userId: string): Promise<string[]> {
  const orders = await tx
    .selectFrom('print_orders')
    .select(['print_file_key', 'mockup_key'])
    .where('user_id', '=', userId)
    .forUpdate()
    .execute()
  const quotes = await tx.selectFrom('print_quotes').select('mockup_key').where('user_id', '=', userId).execute()
  await tx
    .updateTable('print_orders')
    .set({ recipient: null, print_file_key: null, mockup_key: null, source_key: null, updated_at: new Date() })
    .where('user_id', '=', userId)
    .execute()
  const keys = [...orders.flatMap((o) => [o.print_file_key, o.mockup_key]), ...quotes.map((q) => q.mockup_key)]
  return [...new Set(keys.filter((key): key is string => key !== null))]
}
