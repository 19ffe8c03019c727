/**
 * One HTTP call to a vision model, with every way it can fail turned into a reason to skip the
 * vision part (the photo check never blocks a submission on its own failure): counted as
 * pawtrait_photo_check_vision_skipped_total{reason}.
 */
import { visionAnswerSchema, type VisionAnswer } from './vision-answer.ts'

export type SkipReason =
  | 'no_key'
  | 'timeout'
  | 'network'
  | 'rate_limited'
  | 'server_error'
  /** A 4xx other than 429: a bad key, a retired model, a request the API would not take. */
  | 'rejected'
  /** A 200 whose body lacks the structured answer, or a refusal to answer. */
  | 'malformed'

export class VisionSkipped extends Error {
  readonly reason: SkipReason

  constructor(reason: SkipReason, detail: string) {
    super(detail)
    this.reason = reason
    this.name = 'VisionSkipped'
  }
}

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
    throw new VisionSkipped(timedOut ? 'timeout' : 'network', String(error))
  }
  const text = await response.text().catch(() => '')
  if (!response.ok) {
    const reason = response.status === 429 ? 'rate_limited' : response.status >= 500 ? 'server_error' : 'rejected'
    throw new VisionSkipped(reason, `HTTP ${response.status}: ${text.slice(0, 300)}`)
  }
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new VisionSkipped('malformed', 'the answer is not JSON')
  }
}

/** The model's structured answer, from the JSON text the API put where its docs say. */
export function parseAnswerText(text: unknown): VisionAnswer {
  if (typeof text !== 'string') throw new VisionSkipped('malformed', 'no structured answer in the response')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new VisionSkipped('malformed', 'the structured answer is not JSON')
  }
  const parsed = visionAnswerSchema.safeParse(value)
  if (!parsed.success) throw new VisionSkipped('malformed', `the structured answer does not fit the schema`)
  return parsed.data
}
