import type { ReactNode } from 'react'
import { DelayedRedirect } from './delayed-redirect.tsx'

interface RedirectNoticeProps {
  /** The card's class names. */
  className: string
  title: string
  message: ReactNode
  to: string
  /** Where `to` leads, as the sentence names it (usually a link to `to`). */
  destination: ReactNode
  seconds: number
}

/** A form's success card: the message, "Redirecting to … in N seconds…", and the redirect itself. */
export function RedirectNotice({ className, title, message, to, destination, seconds }: RedirectNoticeProps) {
  return (
    <section className={className} aria-live="polite">
      <h1>{title}</h1>
      <p className="form-success">{message}</p>
      <p className="muted">
        Redirecting to {destination} in {seconds} seconds…
      </p>
      <DelayedRedirect to={to} seconds={seconds} />
    </section>
  )
}
