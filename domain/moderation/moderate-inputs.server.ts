/**
 * Moderation before paying: with an OpenAI key, the free text a user sends to a paid generation
 * (a prompt, the guided fields, a note) and the photos they upload go through OpenAI's moderation
 * endpoint (omni-moderation-latest, free of charge) before anything is charged. A flagged input is
 * refused with 422 and a plain reason. Without a key (offline) nothing is moderated, which the
 * start-up line and /system-status say. A moderation call that fails (timeout, 5xx, 429...) lets
 * the input go on unmoderated, logged and counted: moderation never blocks work on its own failure.
 */
import sharp from 'sharp'
import { getEnv } from '#platform/env.server.ts'
import { postJson, SkippedCall } from '#platform/json-call.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { MODERATION_MODEL, moderationState } from '#platform/moderation-state.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { createLimiter } from '#domain/limits/concurrency.server.ts'
import { categoryWords, flaggedCategories, moderationAnswerSchema } from './moderation-answer.ts'

/** Photos are looked at this large: enough to judge, few bytes to send. */
const PHOTO_SIDE = 512
// Shrinking decodes the photo (CPU-bound, memory for a large PNG): one at a time.
const shrinkTurn = createLimiter(1)

export interface ModeratedInputs {
  /** The text the user typed, e.g. a prompt and the guided fields joined; empty is not sent. */
  text?: string
  /** The uploaded photos, the pet photo first. */
  photos?: Buffer[]
}

/**
 * Refuses (422) a flagged input, the text first; answers when every input passed or could not be
 * moderated. The calls (one for the text, one per photo) run side by side.
 */
export async function requireModeratedInputs(inputs: ModeratedInputs): Promise<void> {
  if (!moderationState().on) return
  const text = inputs.text?.trim() ?? ''
  const photos = inputs.photos ?? []
  const [textFlags, ...photoFlags] = await Promise.all([
    text ? flagsOf(text, 'text') : [],
    ...photos.map(async (photo) => flagsOf(await photoDataUrl(photo), 'image')),
  ])
  if (textFlags.length > 0) {
    // No field: the text may come from fields the page does not show (a template's prompt, Guide mode's options).
    throw new HttpError(422, `This description was flagged for ${categoryWords(textFlags)}; please change it`, {
      code: 'moderation',
    })
  }
  const flaggedPhoto = photoFlags.findIndex((flags) => flags.length > 0)
  if (flaggedPhoto >= 0) {
    const which = flaggedPhoto === 0 ? 'This photo' : `Reference image ${flaggedPhoto}`
    throw new HttpError(
      422,
      `${which} was flagged for ${categoryWords(photoFlags[flaggedPhoto])}; please choose another`,
      { code: 'moderation', field: 'images' },
    )
  }
}

/** The categories OpenAI flagged for one input; [] when none, or when the call could not be made. */
async function flagsOf(input: string, type: 'text' | 'image'): Promise<string[]> {
  const env = getEnv()
  try {
    const answer = await postJson(
      `${env.OPENAI_BASE_URL.replace(/\/$/, '')}/moderations`,
      { authorization: `Bearer ${env.OPENAI_API_KEY}` },
      {
        model: MODERATION_MODEL,
        input: type === 'text' ? input : [{ type: 'image_url', image_url: { url: input } }],
      },
      env.MODERATION_TIMEOUT_MS,
    )
    const parsed = moderationAnswerSchema.safeParse(answer)
    if (!parsed.success) throw new SkippedCall('malformed', 'the answer has no moderation result')
    return flaggedCategories(parsed.data, type)
  } catch (error) {
    if (!(error instanceof SkippedCall)) throw error
    getMetrics().moderationSkipped.inc({ reason: error.reason })
    getLogger().warn(
      { input: type, reason: error.reason, detail: error.message },
      'moderation: the call failed; the input goes on unmoderated',
    )
    return []
  }
}

async function photoDataUrl(photo: Buffer) {
  const jpeg = await shrinkTurn(() =>
    sharp(photo)
      .autoOrient()
      .resize(PHOTO_SIDE, PHOTO_SIDE, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 80 })
      .toBuffer(),
  )
  return `data:image/jpeg;base64,${jpeg.toString('base64')}`
}
