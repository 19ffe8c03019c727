import { json } from '@remix-run/node'
import { registrationCodeSentMessage, sendRegistrationCode } from '#domain/accounts/account-codes.server.ts'
import { sendCodeSchema } from '#domain/accounts/account-schemas.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'

/** POST /api/auth/send-verification-code { email } -> { message }: a registration code by email. */
export const action = apiHandler(async ({ request }) => {
  const { email } = sendCodeSchema.parse(await readJson(request))
  await sendRegistrationCode(getDb(), email, getClientAddress(request))
  return json({ message: registrationCodeSentMessage })
})
