/**
 * Moderation before paying: with an OpenAI key, the free text a user sends to a paid generation
 * (a prompt, the guided fields, a note, a saved pet's traits, the traits a vision model read off the
 * photo) and the photos they upload go through OpenAI's moderation endpoint (omni-moderation-latest,
 * free of charge) before anything is charged; a saved pet's text when it is saved. A flagged input
 * is refused with 422 and a plain reason. Without a key (offline) nothing is moderated, which the
 * start-up line and /system-status say. A call that fails on OpenAI's side (timeout, 5xx, a bad
 * answer) lets the input go on unmoderated, logged and counted: an outage of moderation never blocks
 * work. A 429 is different: it means our own volume (possibly someone flooding it), and letting
 * everything through unmoderated then would turn moderation off on demand, so the submission is
 * answered 503 with Retry-After and nothing is charged.
 */
import sharp from 'sharp'
import { getEnv } from '#platform/env.server.ts'
import { postJson, SkippedCall } from '#platform/json-call.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { MODERATION_MODEL, moderationState } from '#platform/moderation-state.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { createLimiter } from '#domain/limits/concurrency.server.ts'
import { traitTexts, type PetTraits } from '#domain/pets/pet-traits.ts'
import { categoryWords, flaggedCategories, moderationAnswerSchema } from './moderation-answer.ts'

/** Photos are looked at this large: enough to judge, few bytes to send. */
const PHOTO_SIDE = 512
/** How long a submission refused while moderation answers 429 is told to wait. */
const MODERATION_BUSY_RETRY_SECONDS = 30
// Shrinking decodes the photo (CPU-bound, memory for a large PNG): one at a time.
const shrinkTurn = createLimiter(1)

/** A text with a name of its own (a saved pet's breed, say): a flag is refused naming its field. */
export interface ModeratedField {
  /** The form field the refusal names (e.g. 'breed', 'images'). */
  field: string
  text: string
  /** The refusal's message, given the flagged categories in words. */
  refusal: (categories: string) => string
}

/**
 * A pet's traits (species, breed, colours, markings) as named fields: a flag is refused under
 * `field(name)`, worded by `refusal` from e.g. "breed was" or "markings were" and the categories.
 */
export function traitFields(
  traits: PetTraits,
  field: (name: string) => string,
  refusal: (subject: string, categories: string) => string,
): ModeratedField[] {
  return traitTexts(traits).map(({ name, text }) => ({
    field: field(name),
    text,
    refusal: (categories) =>
      refusal(`${name} ${name === 'colours' || name === 'markings' ? 'were' : 'was'}`, categories),
  }))
}

export interface ModeratedInputs {
  /** The text the user typed, e.g. a prompt and the guided fields joined; empty is not sent. */
  text?: string
  /** Named texts, all in one call (one result each); empty ones are not sent. */
  fields?: ModeratedField[]
  /** The uploaded photos, the pet photo first. */
  photos?: Buffer[]
}

/**
 * Refuses (422) a flagged input, the text first, then the named fields, then the photos; answers
 * when every input passed or could not be moderated (503 when moderation answers 429). The calls
 * (one for the text, one for the fields, one per photo) run side by side.
 */
export async function requireModeratedInputs(inputs: ModeratedInputs): Promise<void> {
  if (!moderationState().on) return
  const text = inputs.text?.trim() ?? ''
  const fields = (inputs.fields ?? []).filter((field) => field.text.trim())
  const photos = inputs.photos ?? []
  const [[textFlags = []], fieldFlags, ...photoFlags] = await Promise.all([
    text ? flagsOf(text, 'text') : [],
    fields.length > 0
      ? flagsOf(
          fields.map((field) => field.text.trim()),
          'text',
        )
      : [],
    ...photos.map(async (photo) => (await flagsOf(await photoDataUrl(photo), 'image'))[0] ?? []),
  ])
  if (textFlags.length > 0) {
    // No field: the text may come from fields the page does not show (a template's prompt, Guide mode's options).
    throw new HttpError(422, `This description was flagged for ${categoryWords(textFlags)}; please change it`, {
      code: 'moderation',
    })
  }
  const flaggedField = fields.findIndex((_, index) => (fieldFlags[index] ?? []).length > 0)
  if (flaggedField >= 0) {
    const { field, refusal } = fields[flaggedField]
    throw new HttpError(422, refusal(categoryWords(fieldFlags[flaggedField])), { code: 'moderation', field })
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

/**
 * The categories OpenAI flagged for each input (a text, several texts, or one photo's data URL);
 * [] when the call could not be made. A 429 throws the 503 that refuses the submission.
 */
async function flagsOf(input: string | string[], type: 'text' | 'image'): Promise<string[][]> {
  const env = getEnv()
  const count = Array.isArray(input) ? input.length : 1
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
    if (!parsed.success || parsed.data.results.length < count) {
      throw new SkippedCall('malformed', 'the answer has no moderation result for each input')
    }
    return Array.from({ length: count }, (_, index) => flaggedCategories(parsed.data, type, index))
  } catch (error) {
    if (!(error instanceof SkippedCall)) throw error
    if (error.reason === 'rate_limited') throw moderationBusy(type, error.message)
    getMetrics().moderationSkipped.inc({ reason: error.reason })
    getLogger().warn(
      { input: type, reason: error.reason, detail: error.message },
      'moderation: the call failed; the input goes on unmoderated',
    )
    return []
  }
}

function moderationBusy(input: 'text' | 'image', detail: string) {
  getMetrics().moderationBusy.inc()
  getLogger().warn({ input, detail }, 'moderation: rate limited (our own volume); the submission is answered 503')
  return new HttpError(
    503,
    'Our safety check is busy right now, so nothing was charged. Please try again in a minute.',
    { code: 'moderation_busy', headers: { 'Retry-After': String(MODERATION_BUSY_RETRY_SECONDS) } },
  )
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
