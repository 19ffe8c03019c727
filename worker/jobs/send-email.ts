import type { Task } from 'graphile-worker'
import { z } from 'zod'
import { deliverEmail } from '#platform/email.server.ts'

const payloadSchema = z.object({
  to: z.string().email(),
  subject: z.string().min(1),
  text: z.string(),
  html: z.string().optional(),
  headers: z.record(z.string()).optional(),
})

/** Delivers one queued email (SMTP, or the local outbox); a failure is retried by graphile-worker. */
export const sendEmail: Task = async (payload, helpers) => {
  const message = payloadSchema.parse(payload)
  const destination = await deliverEmail(message)
  helpers.logger.info(`email "${message.subject}" to ${message.to}: ${destination}`)
}
