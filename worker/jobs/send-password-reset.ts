import type { Task } from 'graphile-worker'
import { z } from 'zod'
import { emailPasswordResetCode } from '#domain/accounts/account-codes.server.ts'
import { getDb } from '#platform/db.server.ts'

// The web validated the address; any text is looked up as is.
const payloadSchema = z.object({ email: z.string().min(1) })

/**
 * Forgot password, the part that depends on whether the address has an account (issue 14): the
 * web answers every address after the same work and leaves the lookup, the code and the email here.
 */
export const sendPasswordReset: Task = async (payload) => {
  const { email } = payloadSchema.parse(payload)
  await emailPasswordResetCode(getDb(), email)
}
