/**
 * The photo check every uploaded pet photo goes through before anything is charged: the local
 * measures first (decodes, size, blank, blur; domain/photo-check/local-verdict.ts), then, with a
 * remote image provider configured, its vision model (exactly one pet? species, breed, colours,
 * markings, problems), cached by the SHA-256 of what the model is shown (the decoded photo, upright,
 * shrunk to the working size, re-encoded), so the same picture is never paid for twice however its
 * file is dressed up (an appended byte, other metadata, another container of the same pixels).
 * The vision part never blocks: offline it is skipped by design; when it cannot be made (no key,
 * timeout, 5xx...) the local checks decide alone, and the skip is logged and counted.
 */
import { createHash } from 'node:crypto'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { createLimiter } from '#domain/limits/concurrency.server.ts'
import { judgeMeasures } from './local-verdict.ts'
import { measurePhoto } from './photo-measures.server.ts'
import { judgeAnswer, visionAnswerSchema, type SeenTraits, type VisionAnswer } from './vision-answer.ts'
import { askGemini } from './vision-gemini.server.ts'
import { askOpenAi } from './vision-openai.server.ts'
import { SkippedCall, type SkipReason } from '#platform/json-call.server.ts'

export interface PhotoCheck {
  ok: boolean
  /** Why the photo cannot work, worded for the user (set when ok is false). */
  refusal?: string
  /** What may work less well; the photo can still be submitted. */
  warnings: string[]
  /** What the vision model saw of the pet. */
  traits?: SeenTraits
  /** 'skipped': offline, or the call could not be made (`skipReason`). */
  vision: 'checked' | 'skipped' | 'cached'
  skipReason?: SkipReason | 'offline' | 'refused_locally'
}

// Measuring decodes the photo (CPU-bound, memory for a PNG without shrink-on-load): one at a time.
const measureTurn = createLimiter(1)

export async function checkPetPhoto(db: DB, bytes: Buffer): Promise<PhotoCheck> {
  const measures = await measureTurn(() => measurePhoto(bytes))
  const local = judgeMeasures(measures)
  if (local.refusal)
    return { ok: false, refusal: local.refusal, warnings: [], vision: 'skipped', skipReason: 'refused_locally' }

  const seen = await lookAtPhoto(db, measures.preview)
  if (!('answer' in seen)) return { ok: true, warnings: local.warnings, vision: 'skipped', skipReason: seen.skipped }
  const judged = judgeAnswer(seen.answer)
  return {
    ok: !judged.refusal,
    refusal: judged.refusal,
    warnings: judged.refusal ? [] : [...local.warnings, ...judged.warnings],
    traits: judged.traits,
    vision: seen.vision,
  }
}

/** The check as a gate: a photo that cannot work is refused with 422 and its message. */
export async function requirePetPhoto(db: DB, bytes: Buffer): Promise<PhotoCheck> {
  const check = await checkPetPhoto(db, bytes)
  if (check.refusal) throw new HttpError(422, check.refusal, { code: 'photo_check', field: 'images' })
  return check
}

type Seen = { answer: VisionAnswer; vision: 'checked' | 'cached' } | { skipped: SkipReason | 'offline' }

async function lookAtPhoto(db: DB, preview: Buffer): Promise<Seen> {
  const env = getEnv()
  const provider = env.IMAGE_PROVIDER
  if (provider !== 'openai' && provider !== 'gemini') return { skipped: 'offline' }
  const sha256 = createHash('sha256').update(preview).digest('hex')
  const cached = await db.selectFrom('photo_checks').select('answer').where('sha256', '=', sha256).executeTakeFirst()
  const fromCache = visionAnswerSchema.safeParse(cached?.answer)
  if (fromCache.success) return { answer: fromCache.data, vision: 'cached' }

  const model = provider === 'openai' ? env.OPENAI_VISION_MODEL : env.GEMINI_VISION_MODEL
  try {
    const apiKey = provider === 'openai' ? env.OPENAI_API_KEY : env.GEMINI_API_KEY
    if (!apiKey) throw new SkippedCall('no_key', `${provider} has no API key in this process`)
    const config = { apiKey, model, timeoutMs: env.PHOTO_CHECK_TIMEOUT_MS }
    const answer =
      provider === 'openai'
        ? await askOpenAi(preview, { ...config, baseUrl: env.OPENAI_BASE_URL })
        : await askGemini(preview, { ...config, baseUrl: env.GEMINI_BASE_URL })
    await db
      .insertInto('photo_checks')
      .values({ sha256, provider, model, answer: JSON.stringify(answer) })
      .onConflict((oc) => oc.column('sha256').doNothing())
      .execute()
    return { answer, vision: 'checked' }
  } catch (error) {
    if (!(error instanceof SkippedCall)) throw error
    getMetrics().photoCheckVisionSkipped.inc({ reason: error.reason })
    getLogger().warn(
      { provider, model, reason: error.reason, detail: error.message },
      'photo check: the vision call was skipped; the local checks decide alone',
    )
    return { skipped: error.reason }
  }
}
