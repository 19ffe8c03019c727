import { type ActionFunctionArgs, redirect } from '@remix-run/node'
import { endSession } from '#domain/sessions/auth.server.ts'

/** POST /logout (the header's Logout form): revokes the session, clears the cookie, goes home. */
export async function action({ request }: ActionFunctionArgs) {
  return redirect('/', { headers: { 'Set-Cookie': await endSession(request) } })
}

export async function loader() {
  return redirect('/')
}
