import { Link } from '@remix-run/react'

/** What a signed-in user sees on a page their role may not open (the server answers it with 403). */
export function AccessDenied({ message, title = 'Access Denied' }: { message: string; title?: string }) {
  return (
    <div className="card center-card" role="alert">
      <h1>{title}</h1>
      <p>{message}</p>
      <Link className="button" to="/">
        Go to Homepage
      </Link>
    </div>
  )
}
