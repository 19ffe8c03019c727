import { createCookie } from '@remix-run/node'
import {
  createSession,
  findLiveSession,
  findSessionUser,
  hashToken,
  revokeSession,
  SESSION_DAYS,
} from '#domain/sessions/session.server.ts'
import { createSessionCache, type SessionCache } from '#domain/sessions/session-cache.server.ts'
import { getDatabaseNotices } from '#domain/live-updates/database-notices.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import type { SignInMethod, User } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { noteSeenAddress } from '#domain/accounts/seen-addresses.server.ts'
import { usesSecureCookies } from '#platform/public-url.server.ts'

let sessionCookie: ReturnType<typeof createCookie> | undefined

/** The page session: an opaque token in an httpOnly, SameSite=Lax cookie (Lax keeps the OAuth return working). */
export function getSessionCookie() {
  const env = getEnv()
  sessionCookie ??= createCookie('pawtrait_session', {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: usesSecureCookies(env),
    maxAge: SESSION_DAYS * 24 * 60 * 60,
    secrets: [env.SESSION_SECRET],
  })
  return sessionCookie
}

/** API clients send the token in `x-auth-token` or `auth-token` (both readings of the spec) or as a Bearer token. */
export async function getRequestToken(request: Request): Promise<string | null> {
  const header =
    request.headers.get('x-auth-token') ??
    request.headers.get('auth-token') ??
    request.headers.get('authorization')?.replace(/^Bearer\s+/i, '')
  if (header) return header.trim()
  const fromCookie = await getSessionCookie().parse(request.headers.get('cookie'))
  return typeof fromCookie === 'string' ? fromCookie : null
}

/** The session's user; the client it came from is remembered as one the user was seen at (for referrals). */
export async function getOptionalUser(request: Request): Promise<User | null> {
  const token = await getRequestToken(request)
  if (!token) return null
  const user = await findSessionUser(getDb(), token)
  if (!user) return null
  rememberClient(request, user.id)
  return user
}

let sessionCache: SessionCache | null | undefined

/** This process's session cache, or null with SESSION_CACHE_MS=0. */
function getSessionCache() {
  if (sessionCache !== undefined) return sessionCache
  const ttlMs = getEnv().SESSION_CACHE_MS
  const lookups = getMetrics().sessionCacheLookups
  sessionCache =
    ttlMs > 0
      ? createSessionCache({
          notices: getDatabaseNotices(),
          ttlMs,
          onLookup: (hit) => lookups.inc({ result: hit ? 'hit' : 'miss' }),
        })
      : null
  return sessionCache
}

/**
 * The id of the session's user, for the hot reads that need no more of the user (a task's status):
 * usually answered from the session cache (session-cache.server.ts), which honours revocations.
 */
export async function getOptionalUserId(request: Request): Promise<string | null> {
  const token = await getRequestToken(request)
  if (!token) return null
  const read = (tokenHash: string) => findLiveSession(getDb(), tokenHash)
  const cache = getSessionCache()
  const userId = cache ? await cache.userIdOf(hashToken(token), read) : ((await read(hashToken(token)))?.userId ?? null)
  if (userId) rememberClient(request, userId)
  return userId
}

/** Remembers the client as one the user was seen at, after the answer's work (a throttled write, rarely made). */
function rememberClient(request: Request, userId: string) {
  noteSeenAddress(getDb(), userId, getClientAddress(request)).catch((error: unknown) =>
    console.warn('[sessions] remembering the client address failed', error),
  )
}

/** Starts a page session and answers the Set-Cookie header for it. */
export async function startSession(userId: string, method: SignInMethod = 'password') {
  const { token } = await createSession(getDb(), userId, method)
  await getDb().updateTable('users').set({ last_login_at: new Date() }).where('id', '=', userId).execute()
  return { token, cookie: await getSessionCookie().serialize(token) }
}

export async function endSession(request: Request) {
  const token = await getRequestToken(request)
  if (token) await revokeSession(getDb(), token)
  return getSessionCookie().serialize('', { maxAge: 0 })
}
