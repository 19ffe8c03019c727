import { isRouteErrorResponse, useRouteError } from '@remix-run/react'
import type { ReactNode } from 'react'

type ErrorResponse = { status: number; data: unknown }

/**
 * What a page says while the database or media storage is briefly out of reach (the 503 of
 * server/outage-routes.ts).
 */
export const unavailable = {
  title: 'Briefly unavailable',
  text: 'Pawtrait is briefly unavailable. Please try again in a few seconds.',
}

const isUnavailable = (error: unknown) => isRouteErrorResponse(error) && error.status === 503

function BrieflyUnavailable() {
  return (
    <div className="card center-card" role="alert">
      <h1>{unavailable.title}</h1>
      <p>{unavailable.text}</p>
    </div>
  )
}

/**
 * The one error boundary of the pages: a thrown Response with a status the route handles (a
 * permission refusal, a missing record) shows that route's card; an unreachable database the
 * "briefly unavailable" card; anything else shows `title` and `fallback`.
 * Stack traces never reach the page.
 */
export function GeneralErrorBoundary({
  statusHandlers = {},
  title = 'Something went wrong',
  fallback = 'This page could not be loaded. Please try again later.',
}: {
  statusHandlers?: Record<number, (error: ErrorResponse) => ReactNode>
  title?: string
  fallback?: string
}) {
  const error = useRouteError()
  const handler = isRouteErrorResponse(error) ? statusHandlers[error.status] : undefined
  if (handler && isRouteErrorResponse(error)) return <>{handler(error)}</>
  if (isUnavailable(error)) return <BrieflyUnavailable />
  return (
    <div className="card center-card" role="alert">
      <h1>{title}</h1>
      <p>{fallback}</p>
    </div>
  )
}
