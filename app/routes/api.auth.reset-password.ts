import { json } from '@remix-run/node'
import { passwordResetMessage, resetPassword } from '#domain/accounts/account-codes.server.ts'
import { resetPasswordSchema } from '#domain/accounts/account-schemas.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'

/** POST /api/auth/reset-password { email, verificationCode, password, confirmPassword } -> { message } */
export const action = apiHandler(async ({ request }) => {
  const input = resetPasswordSchema.parse(await readJson(request))
  await resetPassword(getDb(), input, getClientAddress(request))
  return json({ message: passwordResetMessage })
})
