/**
 * One JSON POST to an outside helper service (the photo check's vision model, OpenAI's moderation
 * endpoint) whose failure must never block the work it helps: every way the call can fail becomes
 * a SkippedCall with a short reason, which the caller logs and counts before going on without it.
 */

export type SkipReason =
  | 'no_key'
  | 'timeout'
  | 'network'
  | 'rate_limited'
  | 'server_error'
  /** A 4xx other than 429: a bad key, a retired model, a request the API would not take. */
  | 'rejected'
  /** A 200 whose body is not the answer asked for. */
  | 'malformed'

export class SkippedCall extends Error {
  readonly reason: SkipReason

  constructor(reason: SkipReason, detail: string) {
    super(detail)
    this.reason = reason
    this.name = 'SkippedCall'
  }
}

/** The parsed JSON answer of a 2xx; anything else throws SkippedCall. */
export async function postJson(url: string, headers: Record<string, string>, body: unknown, timeoutMs: number) {
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError'
    throw new SkippedCall(timedOut ? 'timeout' : 'network', String(error))
  }
  // The body can stall after the headers: the same timeout covers it (its signal aborts the read).
  const text = await response.text().catch((error: unknown) => {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError'
    if (timedOut) throw new SkippedCall('timeout', 'the answer stalled')
    return ''
  })
  if (!response.ok) {
    const reason = response.status === 429 ? 'rate_limited' : response.status >= 500 ? 'server_error' : 'rejected'
    throw new SkippedCall(reason, `HTTP ${response.status}: ${text.slice(0, 300)}`)
  }
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new SkippedCall('malformed', 'the answer is not JSON')
  }
}
