/**
 * Reading a vision model's structured answer; a call that fails (platform/json-call.server.ts) or
 * an answer that does not fit is a reason to skip the vision part (the photo check never blocks a
 * submission on its own failure): counted as pawtrait_photo_check_vision_skipped_total{reason}.
 */
import { SkippedCall } from '#platform/json-call.server.ts'
import { visionAnswerSchema, type VisionAnswer } from './vision-answer.ts'

/** The model's structured answer, from the JSON text the API put where its docs say. */
export function parseAnswerText(text: unknown): VisionAnswer {
  if (typeof text !== 'string') throw new SkippedCall('malformed', 'no structured answer in the response')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new SkippedCall('malformed', 'the structured answer is not JSON')
  }
  const parsed = visionAnswerSchema.safeParse(value)
  if (!parsed.success) throw new SkippedCall('malformed', `the structured answer does not fit the schema`)
  return parsed.data
}
