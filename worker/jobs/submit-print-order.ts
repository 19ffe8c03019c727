import type { Task } from 'graphile-worker'
import { z } from 'zod'
import { submitPrintOrder } from '#domain/prints/print-lab-orders.server.ts'
import { getDb } from '#platform/db.server.ts'

const payloadSchema = z.object({ orderId: z.string().uuid() })

/** Sends a paid print order to the lab; a failure is tried again with the same idempotency key. */
export const submitPrintOrderJob: Task = async (payload, helpers) => {
  const { orderId } = payloadSchema.parse(payload)
  const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts
  const outcome = await submitPrintOrder(getDb(), orderId, { lastAttempt })
  helpers.logger.info(`print order ${orderId}: ${outcome}`)
}
