import { createHash, randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import type { SignInMethod } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'

export const SESSION_DAYS = 30

/** The token is only ever stored as its SHA-256: a leaked sessions table logs nobody in. */
export function hashToken(token: string) {
  return createHash('sha256').update(token).digest('hex')
}

export async function createSession(db: DB, userId: string, method: SignInMethod = 'password') {
  const token = randomBytes(32).toString('base64url')
  const expiresAt = new Date(Date.now() + SESSION_DAYS * 24 * 60 * 60 * 1000)
  await db
    .insertInto('sessions')
    .values({ token_hash: hashToken(token), user_id: userId, expires_at: expiresAt, signed_in_with: method })
    .execute()
  return { token, expiresAt }
}

/** Sessions that still sign someone in: not expired, not revoked, their user not banned. */
function liveSessions(db: DB) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .where('sessions.expires_at', '>', new Date())
    .where('users.is_banned', '=', false)
}

/** The user a token belongs to, if the session is live and the user is not banned. */
export function findSessionUser(db: DB, token: string) {
  return liveSessions(db).selectAll('users').where('sessions.token_hash', '=', hashToken(token)).executeTakeFirst()
}

/** The user a live session (by its token's hash) signs in, and when it expires (the session cache's reads). */
export async function findLiveSession(db: DB, tokenHash: string) {
  const row = await liveSessions(db)
    .select(['sessions.user_id', 'sessions.expires_at'])
    .where('sessions.token_hash', '=', tokenHash)
    .executeTakeFirst()
  return row ? { userId: row.user_id, expiresAt: row.expires_at } : null
}

/** Which of these token hashes still sign someone in (the live streams' session checks). */
export async function liveSessionHashes(db: DB, tokenHashes: readonly string[]): Promise<Set<string>> {
  if (tokenHashes.length === 0) return new Set()
  const rows = await liveSessions(db)
    .select('sessions.token_hash')
    // One array parameter, however many: a list of values is compiled and sent value by value.
    .where('sessions.token_hash', '=', sql<string>`any(${[...new Set(tokenHashes)]}::text[])`)
    .execute()
  return new Set(rows.map((row) => row.token_hash))
}

/** How and when the token's session began (a fresh Google sign-in is asked for before deleting a Google-only account). */
export function findSessionStart(db: DB, token: string) {
  return db
    .selectFrom('sessions')
    .select(['signed_in_with', 'created_at'])
    .where('token_hash', '=', hashToken(token))
    .executeTakeFirst()
}

export async function revokeSession(db: DB, token: string) {
  await db.deleteFrom('sessions').where('token_hash', '=', hashToken(token)).execute()
}

export async function revokeUserSessions(db: DB, userId: string) {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute()
}

export async function deleteExpiredSessions(db: DB) {
  const result = await db.deleteFrom('sessions').where('expires_at', '<=', new Date()).executeTakeFirst()
  return Number(result.numDeletedRows)
}
