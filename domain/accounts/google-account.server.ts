import type { User } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { forbidden } from '#domain/http-error.server.ts'
import { bannedMessage } from '#domain/accounts/account.server.ts'
import { recordRegistration } from '#domain/analytics/events.server.ts'
import { revokeUserSessions } from '#domain/sessions/session.server.ts'
import { createUser, findUserByEmail } from '#domain/accounts/user.server.ts'

export interface GoogleIdentity {
  googleId: string
  email: string
  emailVerified: boolean
  name: string
}

/**
 * The account a Google sign-in belongs to: the one already linked to this Google id, else the one
 * with the same (Google-verified) email, which gets linked, else a new one.
 */
export async function findOrCreateGoogleUser(db: DB, identity: GoogleIdentity): Promise<User> {
  if (!identity.emailVerified) throw forbidden('Your Google account email is not verified')
  const email = identity.email.trim().toLowerCase()
  const linked = await db.selectFrom('users').selectAll().where('google_id', '=', identity.googleId).executeTakeFirst()
  const user = linked ?? (await findUserByEmail(db, email))
  if (user?.is_banned) throw forbidden(bannedMessage)
  if (!user) {
    const created = await createUser(db, {
      email,
      name: identity.name.trim() || email.split('@')[0],
      googleId: identity.googleId,
      emailVerified: true,
    })
    recordRegistration(created.id, null, 'google')
    return created
  }
  if (user.google_id === identity.googleId) return user
  // An unverified account with this email may have been registered by someone else before its
  // owner came with Google: Google proves the owner, so that password and its sessions stop working.
  const distrust = !user.email_verified
  const updated = await db
    .updateTable('users')
    .set({ google_id: identity.googleId, email_verified: true, ...(distrust ? { password_hash: null } : {}) })
    .where('id', '=', user.id)
    .returningAll()
    .executeTakeFirstOrThrow()
  if (distrust) await revokeUserSessions(db, user.id)
  return updated
}
