import { isRouteErrorResponse, useRouteError } from '@remix-run/react'
import type { ReactNode } from 'react'

type ErrorResponse = { status: number; data: unknown }

/**
 * The one error boundary of the pages: a thrown Response with a status the route handles (a
 * permission refusal, a missing record) shows that route's card; anything else shows `fallback`.
 * Stack traces never reach the page.
 */
export function GeneralErrorBoundary({
  statusHandlers = {},
  fallback = 'This page could not be loaded. Please try again later.',
}: {
  statusHandlers?: Record<number, (error: ErrorResponse) => ReactNode>
  fallback?: string
}) {
  const error = useRouteError()
  const handler = isRouteErrorResponse(error) ? statusHandlers[error.status] : undefined
  if (handler && isRouteErrorResponse(error)) return <>{handler(error)}</>
  return (
    <div className="card center-card" role="alert">
      <h1>Something went wrong</h1>
      <p>{fallback}</p>
    </div>
  )
}
