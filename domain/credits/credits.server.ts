import { sql, type RawBuilder } from 'kysely'
import type { LedgerType, TaskKind } from '#platform/db-schema.ts'
import { insertWhenFrom, type DB, type Tx } from '#platform/db.server.ts'
import { hdDifferenceLine, refundLine, type RefundReason } from './refund-reasons.ts'

/**
 * Credits live in users.credits and every change is mirrored by one row of the append-only ledger
 * (credit_transactions), so that for every user credits == sum(ledger.amount). These functions are
 * the only writers of either; call them inside the transaction that does the work they pay for.
 */

interface LedgerEntry {
  userId: string
  type: LedgerType
  /** Signed: negative for spending. */
  amount: number
  description: string
  taskId?: string
  /** A refund's version of the task (refunds are once per task and version). */
  versionIndex?: number
  /** A refund that is not a version's full price: HD's difference (once per version on its own index). */
  refundKind?: 'hd_shortfall'
  paymentProofId?: string
  /** A print order's spend or refund: one of each per order (the print_*_once indexes). */
  printOrderId?: string
}

/** A ledger line's columns. */
function ledgerRow(entry: LedgerEntry) {
  return {
    user_id: entry.userId,
    type: entry.type,
    amount: entry.amount,
    description: entry.description,
    task_id: entry.taskId ?? null,
    // A task's refund names its version; a one-version task's is version 0.
    version_index: entry.versionIndex ?? (entry.type === 'earn' && entry.taskId ? 0 : null),
    payment_proof_id: entry.paymentProofId ?? null,
    print_order_id: entry.printOrderId ?? null,
    refund_kind: entry.refundKind ?? null,
  }
}

async function writeLedger(tx: Tx | DB, entry: LedgerEntry) {
  await tx.insertInto('credit_transactions').values(ledgerRow(entry)).execute()
}

type Spend = Omit<LedgerEntry, 'type' | 'amount'> & { cost: number }

/**
 * Takes `cost` credits if the user has them, with the 'spend' ledger line, in one statement: the
 * line is written only if the conditional UPDATE took the credits. That UPDATE is atomic, so
 * parallel payments can never overdraw. Returns the balance left, or null (and changes nothing)
 * when it is short.
 */
export async function spendCredits(tx: Tx, entry: Spend) {
  const paid = await withSpend(tx, entry).selectFrom('debit').select('credits').executeTakeFirst()
  // The row stays locked until the transaction ends: this is the balance it commits with.
  return paid ? { credits: paid.credits } : null
}

/**
 * spendCredits as the first steps of a statement that does the paid work too, its steps written
 * only for a row of `debit` (insertWhenFrom): `debit` holds the balance left, and no row when the
 * user is short or `onlyIf` is false. `onlyIf` goes into the debit's WHERE: evaluated on the
 * user's row before it is locked, and again on its latest version should a concurrent payment have
 * changed it meanwhile.
 */
export function withSpend(db: DB | Tx, entry: Spend, onlyIf: RawBuilder<boolean> = sql<boolean>`true`) {
  const line = ledgerRow({ ...entry, type: 'spend', amount: -entry.cost })
  return db
    .with('debit', (qc) =>
      qc
        .updateTable('users')
        .set({ credits: sql`credits - ${entry.cost}` })
        .where('id', '=', entry.userId)
        .where('credits', '>=', entry.cost)
        .where(onlyIf)
        .returning('credits'),
    )
    .with('spend_line', (qc) => insertWhenFrom(qc, 'credit_transactions', line, 'debit'))
}

/** Adds credits (bonus, refund, purchase). The ledger's unique indexes make refunds and purchases once-only. */
export async function grantCredits(tx: Tx, entry: Omit<LedgerEntry, 'type'> & { type: 'earn' | 'purchase' }) {
  await writeLedger(tx, entry)
  await tx
    .updateTable('users')
    .set({ credits: sql`credits + ${entry.amount}` })
    .where('id', '=', entry.userId)
    .execute()
}

/**
 * Refunds the given versions of a task, one ledger line each naming its version and `reason` in
 * plain words (refund-reasons.ts), at `unitCost` a version. The credit_transactions_refund_once
 * index (task, version) makes each line once-only: a second refund of the same version throws and
 * rolls the caller's transaction back.
 */
export async function refundVersions(
  tx: Tx,
  refund: {
    userId: string
    taskId: string
    kind: TaskKind
    /** How many versions the run asked for. */
    variants: number
    unitCost: number
    versionIndexes: number[]
    reason: RefundReason
  },
) {
  if (refund.unitCost <= 0) return
  for (const versionIndex of refund.versionIndexes) {
    await grantCredits(tx, {
      userId: refund.userId,
      type: 'earn',
      amount: refund.unitCost,
      description: refundLine(refund.reason, { kind: refund.kind, index: versionIndex, of: refund.variants }),
      taskId: refund.taskId,
      versionIndex,
    })
  }
}

/**
 * Gives back HD's price difference for each version delivered smaller than HD, one line each naming
 * its version. The credit_transactions_hd_refund_once index makes it once per (task, version), apart
 * from the full refund of a version that never came.
 */
export async function refundHdDifference(
  tx: Tx,
  refund: { userId: string; taskId: string; variants: number; amount: number; versionIndexes: number[] },
) {
  for (const versionIndex of refund.versionIndexes) {
    await grantCredits(tx, {
      userId: refund.userId,
      type: 'earn',
      amount: refund.amount,
      description: hdDifferenceLine({ kind: 'image', index: versionIndex, of: refund.variants }),
      taskId: refund.taskId,
      versionIndex,
      refundKind: 'hd_shortfall',
    })
  }
}

/**
 * Takes back up to `upTo` credits of a payment whose money went back (a card refund or dispute),
 * never below zero: credits already spent stay spent. One ledger line (an adjustment naming the
 * payment), even when nothing was left to take, worded by `describe(taken)`. Answers how many
 * were taken. The caller makes it once per event (domain/payments/card-reversals.server.ts).
 */
export async function takeBackCredits(
  tx: Tx,
  entry: { userId: string; upTo: number; paymentProofId: string | null; describe: (taken: number) => string },
) {
  const user = await tx
    .selectFrom('users')
    .select('credits')
    .where('id', '=', entry.userId)
    .forUpdate()
    .executeTakeFirst()
  if (!user) return 0
  const taken = Math.max(0, Math.min(entry.upTo, user.credits))
  if (taken > 0) {
    await tx
      .updateTable('users')
      .set({ credits: sql`credits - ${taken}` })
      .where('id', '=', entry.userId)
      .execute()
  }
  await writeLedger(tx, {
    userId: entry.userId,
    type: 'adjustment',
    amount: -taken,
    description: entry.describe(taken),
    paymentProofId: entry.paymentProofId ?? undefined,
  })
  return taken
}

/** Sets a balance by hand (user management), recording the difference as an adjustment. */
export async function setCredits(tx: Tx, userId: string, credits: number, description: string) {
  const before = await tx.selectFrom('users').select('credits').where('id', '=', userId).forUpdate().executeTakeFirst()
  if (!before) return false
  const delta = credits - before.credits
  if (delta !== 0) {
    await tx.updateTable('users').set({ credits }).where('id', '=', userId).execute()
    await writeLedger(tx, { userId, type: 'adjustment', amount: delta, description })
  }
  return true
}
