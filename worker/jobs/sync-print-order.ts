import type { Task } from 'graphile-worker'
import { z } from 'zod'
import { syncPrintOrder } from '#domain/prints/print-lab-orders.server.ts'
import { getDb } from '#platform/db.server.ts'

const payloadSchema = z.object({ orderId: z.string().uuid() })

/** Re-reads a print order at the lab and takes its stage, shipments and issues. */
export const syncPrintOrderJob: Task = async (payload, helpers) => {
  const { orderId } = payloadSchema.parse(payload)
  helpers.logger.info(`print order ${orderId} read again: ${await syncPrintOrder(getDb(), orderId)}`)
}
