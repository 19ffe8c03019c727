import { logIn } from '#domain/accounts/account.server.ts'
import { loginSchema } from '#domain/accounts/account-schemas.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { signedInJson } from '#app/accounts/session-response.server.ts'

/** POST /api/auth/login { email, password } -> { token, user } */
export const action = apiHandler(async ({ request }) => {
  const input = loginSchema.parse(await readJson(request))
  return signedInJson(await logIn(getDb(), input, getClientAddress(request)))
})
