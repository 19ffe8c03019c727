import { json } from '@remix-run/node'
import { resetCodeSentMessage, sendPasswordResetCode } from '#domain/accounts/account-codes.server.ts'
import { forgotPasswordSchema } from '#domain/accounts/account-schemas.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'

/** POST /api/auth/forgot-password { email } -> { message }, the same for known and unknown emails. */
export const action = apiHandler(async ({ request }) => {
  const { email } = forgotPasswordSchema.parse(await readJson(request))
  await sendPasswordResetCode(getDb(), email, getClientAddress(request))
  return json({ message: resetCodeSentMessage })
})
