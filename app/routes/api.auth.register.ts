import { isEmailVerificationEnabled, register } from '#domain/accounts/account.server.ts'
import { registerSchema } from '#domain/accounts/account-schemas.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { signedInJson } from '#app/accounts/session-response.server.ts'
import { referralSlugFrom } from '#app/sharing/referral-cookie.server.ts'

/** POST /api/auth/register { email, password, name, verificationCode } -> 201 { token, user } */
export const action = apiHandler(async ({ request }) => {
  const input = registerSchema(isEmailVerificationEnabled()).parse(await readJson(request))
  return signedInJson(await register(getDb(), input, getClientAddress(request), referralSlugFrom(request)), 201)
})
