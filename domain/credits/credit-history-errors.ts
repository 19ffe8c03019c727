/**
 * What /credit-history says when refreshing its data fails (spec section 8, Credit history).
 * `logout`: the session is no longer valid, so the page sends the user to log in again.
 */
export function creditHistoryError(failure: { status: number; message?: string } | 'network') {
  if (failure === 'network') return { message: 'Network connection error', logout: false }
  const { status, message } = failure
  if (status === 401) {
    return /token|expired/i.test(message ?? '')
      ? { message: 'Session expired, please log in again', logout: true }
      : { message: 'Authentication failed', logout: true }
  }
  if (status === 404) return { message: 'Service unavailable', logout: false }
  return { message: message || `Request failed with status ${status}`, logout: false }
}
