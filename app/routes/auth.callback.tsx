import { type HeadersFunction, json, type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { useEffect } from 'react'
import { DelayedRedirect } from '#app/components/delayed-redirect.tsx'
import { findSessionUser } from '#domain/sessions/session.server.ts'
import { getSessionCookie } from '#domain/sessions/auth.server.ts'
import { getDb } from '#platform/db.server.ts'
import { seo } from '#app/document/seo.ts'

export const meta = () => seo({ title: 'Signing in', description: 'Signing in to Pawtrait.' })

// The token is in the address: never cache the page, never leak the address as a referrer.
const privateHeaders = { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders

/**
 * Where sign-ins that leave the site (Google) come back with ?token=…. The Google callback has
 * already set the session cookie; this page only confirms that the token in the address is that
 * live session. It never signs a browser in from the address alone: a link carrying someone
 * else's token must not log a victim into an attacker's account (login CSRF).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const token = new URL(request.url).searchParams.get('token')
  const cookieToken = await getSessionCookie().parse(request.headers.get('cookie'))
  const user = token && token === cookieToken ? await findSessionUser(getDb(), token) : undefined
  return json({ authenticated: Boolean(user) }, { headers: privateHeaders })
}

export default function AuthCallback() {
  const { authenticated } = useLoaderData<typeof loader>()
  useEffect(() => {
    if (authenticated) window.history.replaceState(window.history.state, '', window.location.pathname)
  }, [authenticated])

  return (
    <section className="card center-card" aria-live="polite">
      {authenticated ? (
        <>
          <h1>Authenticating...</h1>
          <DelayedRedirect to="/" seconds={1} />
        </>
      ) : (
        <>
          <h1>Authentication failed</h1>
          <p>The sign-in link is invalid or has expired. Please log in again.</p>
          <a className="button" href="/login">
            Go to Login
          </a>
        </>
      )}
    </section>
  )
}
