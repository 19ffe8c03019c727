import { redirect } from '@remix-run/node'
import { apiHandler } from '#app/utils/api.server.ts'
import { getGoogleAuth, isGoogleConfigured } from '#app/accounts/google-auth.server.ts'
import { HttpError } from '#domain/http-error.server.ts'

/** GET /api/auth/google: sends the browser to Google (remix-auth throws that redirect, with the state cookie). */
export const loader = apiHandler(async ({ request }) => {
  if (!isGoogleConfigured()) throw new HttpError(503, 'Google sign-in is not configured')
  await getGoogleAuth().authenticator.authenticate('google', request)
  return redirect('/login')
})
