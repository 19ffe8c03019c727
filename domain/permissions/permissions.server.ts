import { json, redirect } from '@remix-run/node'
import { getOptionalUser, getOptionalUserId } from '#domain/sessions/auth.server.ts'
import type { User } from '#platform/db-schema.ts'
import { getEnv } from '#platform/env.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { type Permission, permissionRules, permissionsOf } from '#domain/permissions/permissions.ts'

/**
 * The server half of the permissions table (permissions.ts): every loader, action and API route
 * asks `requireUser` or `requirePermission`. Two refusal styles, one per kind of request:
 * - API (/api/…): an HttpError, answered as JSON `{ message }` with 401 or 403;
 * - pages: a thrown Response: a redirect (to /login, or home where the spec says so), or a 401/403
 *   whose `{ message }` the route's GeneralErrorBoundary shows as its refusal.
 */

const AUTH_EXPIRED = 'Authentication expired, please log in again'
const ACCESS_DENIED = 'Access denied'

/**
 * The OWNER_EMAIL account gets what the spec gives the hard-coded owner. Only once that address is
 * proven (an email code, a password reset or Google), so that whoever registers the address first
 * cannot claim the owner's rights.
 */
function isOwner(user: Pick<User, 'email' | 'email_verified'>) {
  const owner = getEnv().OWNER_EMAIL
  return Boolean(owner) && user.email_verified && user.email.toLowerCase() === owner
}

type Account = Pick<User, 'role' | 'email' | 'email_verified'>

export function userPermissions(user: Account): Permission[] {
  return permissionsOf(user.role, isOwner(user))
}

function userCan(user: Account, permission: Permission) {
  return userPermissions(user).includes(permission)
}

const isApiRequest = (request: Request) => new URL(request.url).pathname.startsWith('/api/')

function loginRedirect(request: Request) {
  const url = new URL(request.url)
  return redirect(`/login?redirectTo=${encodeURIComponent(url.pathname + url.search)}`)
}

function refuse(request: Request, status: 401 | 403, message: string): never {
  if (isApiRequest(request)) throw new HttpError(status, message)
  throw json({ message }, { status })
}

/** The signed-in user; otherwise 401 JSON for the API, a redirect to /login for pages. */
export async function requireUser(request: Request): Promise<User> {
  const user = await getOptionalUser(request)
  if (user) return user
  if (isApiRequest(request)) throw new HttpError(401, AUTH_EXPIRED)
  throw loginRedirect(request)
}

/** `requireUser` for a route that needs only the user's id (a status poll): the session cache answers it. */
export async function requireUserId(request: Request): Promise<string> {
  const userId = await getOptionalUserId(request)
  if (userId) return userId
  if (isApiRequest(request)) throw new HttpError(401, AUTH_EXPIRED)
  throw loginRedirect(request)
}

/** The signed-in user holding `permission`; otherwise the refusal its rule describes. */
export async function requirePermission(request: Request, permission: Permission): Promise<User> {
  const rule = permissionRules[permission]
  const user = await getOptionalUser(request)
  if (!user) {
    if (rule.guests === 'login' && !isApiRequest(request)) throw loginRedirect(request)
    refuse(request, 401, rule.guestMessage ?? AUTH_EXPIRED)
  }
  if (userCan(user, permission)) return user
  if (rule.others === 'home' && !isApiRequest(request)) throw redirect('/')
  refuse(request, 403, rule.deniedMessage ?? ACCESS_DENIED)
}
