import type { LedgerType } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'

const CREDIT_HISTORY_LIMIT = 200

/** The spec knows earn, spend and purchase; a manual adjustment reads as earn or spend by its sign. */
const displayType = (type: LedgerType, amount: number) =>
  type === 'adjustment' ? (amount >= 0 ? 'earn' : 'spend') : type

/** The user's latest ledger lines, newest first (amounts signed: spending is negative). */
export async function listCreditHistory(db: DB, userId: string) {
  const rows = await db
    .selectFrom('credit_transactions')
    .select(['type', 'amount', 'description', 'created_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(CREDIT_HISTORY_LIMIT)
    .execute()
  return rows.map((row) => ({
    type: displayType(row.type, row.amount),
    amount: row.amount,
    description: row.description,
    createdAt: row.created_at.toISOString(),
  }))
}

export type CreditHistoryEntry = Awaited<ReturnType<typeof listCreditHistory>>[number]
