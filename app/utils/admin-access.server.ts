import { json } from '@remix-run/node'
import type { User } from './db-schema.ts'
import { hasRole, isOwner, requireUser } from './auth.server.ts'

/** Admin screens (gallery management, Update Case) are open to admins, superadmins and the owner account. */
export function isAdmin(user: User): boolean {
  return hasRole(user, 'admin') || isOwner(user)
}

/** The signed-in admin; otherwise 401 (not signed in) or 403 `{ message: 'Access denied' }`. */
export async function requireAdmin(request: Request): Promise<User> {
  const user = await requireUser(request)
  if (!isAdmin(user)) throw json({ message: 'Access denied' }, { status: 403 })
  return user
}
