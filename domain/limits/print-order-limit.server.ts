import type { Tx } from '#platform/db.server.ts'
import { HttpError } from '#domain/http-error.server.ts'

/** Print orders one account may have open at once (issue 39, item 9; docs/limits.md). */
const MAX_OPEN_PRINT_ORDERS = 5

/** Open: paid and not yet delivered, cancelled or refused. */
export const OPEN_PRINT_STATUSES = ['submitted', 'at_lab', 'in_production', 'shipped', 'submission_failed'] as const

/**
 * Refuses a sixth open order. Called after the debit, whose UPDATE locks the user's row, so two
 * orders of one user count one after the other, the new one included; throwing rolls it all back.
 */
export async function refuseBeyondOpenPrintOrders(tx: Tx, userId: string) {
  const { open } = await tx
    .selectFrom('print_orders')
    .select((eb) => eb.fn.countAll<number>().as('open'))
    .where('user_id', '=', userId)
    .where('status', 'in', OPEN_PRINT_STATUSES)
    .executeTakeFirstOrThrow()
  if (Number(open) > MAX_OPEN_PRINT_ORDERS) {
    throw new HttpError(
      409,
      `You already have ${MAX_OPEN_PRINT_ORDERS} print orders on their way. Please wait until one arrives.`,
      { code: 'too_many_open_orders' },
    )
  }
}
