import { createHmac, randomInt, timingSafeEqual } from 'node:crypto'
import { sql } from 'kysely'
import type { DB, Tx } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { HttpError } from '#domain/http-error.server.ts'

export type CodePurpose = 'register' | 'reset'

export const CODE_TTL_MINUTES = 10
const MAX_WRONG_ATTEMPTS = 5

/** A refused code: a 400 that forms show beside the code field. */
export const codeRefused = (message: string) => new HttpError(400, message, { field: 'verificationCode' })

const normalizeEmail = (email: string) => email.trim().toLowerCase()

// Keyed with the server secret: a leaked table does not give the codes away to a brute force
// over the million possible values.
function hashCode(email: string, purpose: CodePurpose, code: string) {
  return createHmac('sha256', getEnv().SESSION_SECRET)
    .update(`${purpose}:${normalizeEmail(email)}:${code}`)
    .digest()
}

/** Makes a new 6-digit code for the email (replacing any unused one) and answers it in clear, for the email. */
export async function issueVerificationCode(db: DB | Tx, email: string, purpose: CodePurpose) {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
  await db
    .deleteFrom('verification_codes')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', normalizeEmail(email)))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute()
  await db
    .insertInto('verification_codes')
    .values({
      email: normalizeEmail(email),
      purpose,
      code_hash: hashCode(email, purpose, code).toString('hex'),
      expires_at: sql<Date>`now() + make_interval(mins => ${CODE_TTL_MINUTES})`,
      used_at: null,
    })
    .execute()
  return code
}

/**
 * Accepts the email's latest live code once, or throws codeRefused's error. Each try first
 * takes one of the code's attempts in a single UPDATE, so parallel guesses cannot exceed the limit;
 * the code is then marked used, also atomically, so it works only once.
 */
export async function consumeVerificationCode(db: DB, email: string, purpose: CodePurpose, code: string) {
  const attempt = await db
    .updateTable('verification_codes')
    .set({ attempts: sql`attempts + 1` })
    .where('id', '=', (eb) =>
      eb
        .selectFrom('verification_codes')
        .select('id')
        .where((inner) => inner(inner.fn('lower', ['email']), '=', normalizeEmail(email)))
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .where('expires_at', '>', sql<Date>`now()`)
        .orderBy('created_at', 'desc')
        .limit(1),
    )
    .where('attempts', '<', MAX_WRONG_ATTEMPTS)
    .returning(['id', 'code_hash', 'attempts'])
    .executeTakeFirst()

  if (!attempt) throw codeRefused(await refusalReason(db, email, purpose))

  const expected = Buffer.from(attempt.code_hash, 'hex')
  const given = hashCode(email, purpose, code.trim())
  if (!timingSafeEqual(expected, given)) {
    throw codeRefused(
      attempt.attempts >= MAX_WRONG_ATTEMPTS
        ? tooManyAttempts
        : 'Invalid verification code, please check and try again',
    )
  }
  const used = await db
    .updateTable('verification_codes')
    .set({ used_at: new Date() })
    .where('id', '=', attempt.id)
    .where('used_at', 'is', null)
    .executeTakeFirst()
  if (used.numUpdatedRows === 0n) throw codeRefused(expiredOrMissing)
}

const tooManyAttempts = 'Too many incorrect attempts, please request a new verification code'
const expiredOrMissing = 'The verification code has expired or is invalid, please request a new one'

async function refusalReason(db: DB, email: string, purpose: CodePurpose) {
  const exhausted = await db
    .selectFrom('verification_codes')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', normalizeEmail(email)))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .where('attempts', '>=', MAX_WRONG_ATTEMPTS)
    .executeTakeFirst()
  return exhausted ? tooManyAttempts : expiredOrMissing
}

/** Codes that can no longer be used, kept a day for nothing but support questions. */
export async function deleteStaleVerificationCodes(db: DB) {
  const result = await db
    .deleteFrom('verification_codes')
    .where('expires_at', '<', sql<Date>`now() - interval '1 day'`)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
