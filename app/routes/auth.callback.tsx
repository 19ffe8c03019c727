import { type HeadersFunction, json, type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { useEffect } from 'react'
import { DelayedRedirect } from '#app/components/delayed-redirect.tsx'
import { findSessionUser } from '#app/models/session.server.ts'
import { getRequestToken, getSessionCookie } from '#app/utils/auth.server.ts'
import { getDb } from '#app/utils/db.server.ts'
import { seo } from '#app/utils/seo.ts'

export const meta = () => seo({ title: 'Signing in', description: 'Signing in to Pawtrait.' })

// The token is in the address: never cache the page, never leak the address as a referrer.
const privateHeaders = { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders

/**
 * Where sign-ins that leave the site (Google) come back with ?token=…: a valid token becomes the
 * page session (the cookie is set unless it already holds that token).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const token = new URL(request.url).searchParams.get('token')
  const user = token ? await findSessionUser(getDb(), token) : undefined
  if (!token || !user) return json({ authenticated: false }, { headers: privateHeaders })
  const headers = new Headers(privateHeaders)
  if ((await getRequestToken(request)) !== token) headers.set('Set-Cookie', await getSessionCookie().serialize(token))
  return json({ authenticated: true }, { headers })
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
