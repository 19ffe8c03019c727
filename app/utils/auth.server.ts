import { createCookie, json, redirect } from '@remix-run/node'
import { createSession, findSessionUser, revokeSession, SESSION_DAYS } from './session.server.ts'
import type { Role, User } from './db-schema.ts'
import { getDb } from './db.server.ts'
import { getEnv } from './env.server.ts'

let sessionCookie: ReturnType<typeof createCookie> | undefined

/** The page session: an opaque token in an httpOnly, SameSite=Lax cookie (Lax keeps the OAuth return working). */
export function getSessionCookie() {
  const env = getEnv()
  sessionCookie ??= createCookie('pawtrait_session', {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: env.NODE_ENV === 'production' || (env.PUBLIC_URL?.startsWith('https:') ?? false),
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

export async function getOptionalUser(request: Request): Promise<User | null> {
  const token = await getRequestToken(request)
  if (!token) return null
  return (await findSessionUser(getDb(), token)) ?? null
}

const isApiRequest = (request: Request) => new URL(request.url).pathname.startsWith('/api/')

/** The signed-in user, or: 401 JSON for the API, a redirect to /login for pages. */
export async function requireUser(request: Request): Promise<User> {
  const user = await getOptionalUser(request)
  if (user) return user
  if (isApiRequest(request)) {
    throw json({ message: 'Authentication expired, please log in again' }, { status: 401 })
  }
  const url = new URL(request.url)
  throw redirect(`/login?redirectTo=${encodeURIComponent(url.pathname + url.search)}`)
}

const rank: Record<Role, number> = { user: 0, admin: 1, superadmin: 2 }

/**
 * The OWNER_EMAIL account gets what the spec gives the hard-coded owner: admin links and the video
 * generator. Only once that address is proven (an email code, a password reset or Google), so that
 * whoever registers the address first cannot claim the owner's rights.
 */
export function isOwner(user: Pick<User, 'email' | 'email_verified'>) {
  const owner = getEnv().OWNER_EMAIL
  return Boolean(owner) && user.email_verified && user.email.toLowerCase() === owner
}

export function hasRole(user: Pick<User, 'role'>, role: Role) {
  return rank[user.role] >= rank[role]
}

/** The signed-in user if they hold `role` (or higher); otherwise 401/403 for the API, a redirect for pages. */
export async function requireRole(request: Request, role: Role): Promise<User> {
  const user = await requireUser(request)
  if (hasRole(user, role)) return user
  if (isApiRequest(request)) throw json({ message: 'Access denied' }, { status: 403 })
  throw redirect('/')
}

/** Starts a page session and answers the Set-Cookie header for it. */
export async function startSession(userId: string) {
  const { token } = await createSession(getDb(), userId)
  await getDb().updateTable('users').set({ last_login_at: new Date() }).where('id', '=', userId).execute()
  return { token, cookie: await getSessionCookie().serialize(token) }
}

export async function endSession(request: Request) {
  const token = await getRequestToken(request)
  if (token) await revokeSession(getDb(), token)
  return getSessionCookie().serialize('', { maxAge: 0 })
}
