import { redirect } from '@remix-run/node'
import { signIn } from '#domain/accounts/account.server.ts'
import { recordLogin } from '#domain/analytics/events.server.ts'
import type { User } from '#platform/db-schema.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { getDb } from '#platform/db.server.ts'
import { clearOAuthState, getGoogleAuth, isGoogleConfigured } from '#app/accounts/google-auth.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'

const failed = (headers?: HeadersInit) => redirect('/login?error=google', { headers })

/**
 * GET /api/auth/google/callback: Google's answer. The state must match the cookie set at the start;
 * the user is found, linked or created by verified email, signed in, and sent to /auth/callback?token=…
 */
export const loader = apiHandler(async ({ request }) => {
  if (!isGoogleConfigured()) return failed()
  const clearState = await clearOAuthState(request)
  let user: User
  try {
    user = await getGoogleAuth().authenticator.authenticate('google', request)
  } catch (error) {
    console.warn('[google] sign-in refused:', error instanceof Error ? error.message : error)
    return failed({ 'Set-Cookie': clearState })
  }
  const session = await signIn(getDb(), user.id, 'google')
  recordLogin(user.id, getClientAddress(request), 'google')
  const headers = new Headers([
    ['Set-Cookie', session.cookie],
    ['Set-Cookie', clearState],
  ])
  return redirect(`/auth/callback?token=${encodeURIComponent(session.token)}`, { headers })
})
