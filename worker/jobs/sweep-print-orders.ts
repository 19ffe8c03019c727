import type { Task } from 'graphile-worker'
import { sweepPrintOrders } from '#domain/prints/print-lab-orders.server.ts'
import { getDb } from '#platform/db.server.ts'

/** Every few hours: each open print order is read again at the lab, in case a callback was lost. */
export const sweepPrintOrdersJob: Task = async (_payload, helpers) => {
  helpers.logger.info(`print orders to read again: ${await sweepPrintOrders(getDb())}`)
}
