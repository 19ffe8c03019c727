import { json } from '@remix-run/node'
import { isEmailVerificationEnabled } from '#domain/accounts/account.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'

/** GET /api/config/email-verification -> { enabled } */
export const loader = apiHandler(async () => json({ enabled: isEmailVerificationEnabled() }))
