import { Link, useSearchParams } from '@remix-run/react'
import { DelayedRedirect } from '#app/components/delayed-redirect.tsx'
import { seo } from '#app/document/seo.ts'

export const meta = () => seo({ title: 'Email verification', description: 'Pawtrait email verification.' })

const HOME_REDIRECT_SECONDS = 5

/** The outcome of an email verification, from ?status=success|error. */
export default function EmailVerified() {
  const [params] = useSearchParams()
  const status = params.get('status')
  return (
    <section className="card center-card account-card" aria-live="polite">
      {status === 'success' ? (
        <>
          <h1>Verification Successful!</h1>
          <p>Your email is verified and your registration bonus credits have been added to your account.</p>
          <p className="muted">Redirecting to the homepage in {HOME_REDIRECT_SECONDS} seconds…</p>
          <DelayedRedirect to="/" seconds={HOME_REDIRECT_SECONDS} />
        </>
      ) : status === 'error' ? (
        <>
          <h1>Verification Failed</h1>
          <p>Verification failed. The verification link may be invalid or has expired.</p>
          <Link className="button secondary" to="/register">
            Register Again
          </Link>
        </>
      ) : (
        <>
          <h1>Email verification</h1>
          <p>Invalid verification request.</p>
        </>
      )}
      <p>
        <Link className="button" to="/">
          Go to Homepage
        </Link>
      </p>
    </section>
  )
}
