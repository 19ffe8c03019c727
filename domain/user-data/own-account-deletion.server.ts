import { z } from 'zod'
import type { User } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { forbidden, HttpError } from '#domain/http-error.server.ts'
import { verifyPassword } from '#domain/accounts/password.server.ts'
import { loginFailureLimits } from '#domain/limits/account-limits.server.ts'
import { assertWithinRateLimits, countHits } from '#domain/limits/rate-limit.server.ts'
import { isProtectedAccount } from '#domain/permissions/permissions.ts'
import { findSessionStart } from '#domain/sessions/session.server.ts'
import { deleteAccount } from '#domain/user-management/account-deletion.server.ts'

/**
 * "Delete my account" (issue 32 item 6, decision 0038): the user proves it is them once more and
 * types DELETE, then deleteAccount (the one way an account goes) removes it. An account with a
 * password gives it again (wrong tries count against the login limits); a Google-only account has
 * no password, so its session must come from a Google sign-in of the last 10 minutes.
 */

const CONFIRMATION_WORD = 'DELETE'
export const GOOGLE_REAUTH_MINUTES = 10

export const accountDeletionSchema = z.object({
  password: z.string().max(200).optional().default(''),
  confirmation: z.string({ required_error: `Type ${CONFIRMATION_WORD} to confirm` }).max(100),
})

export type AccountDeletion = z.infer<typeof accountDeletionSchema>

/** Whether the account signs in with Google only, and so confirms by a fresh Google sign-in. */
export const confirmsWithGoogle = (user: Pick<User, 'password_hash'>) => user.password_hash === null

export async function deleteOwnAccount(db: DB, user: User, token: string, input: AccountDeletion, ip: string) {
  if (input.confirmation.trim() !== CONFIRMATION_WORD) {
    throw new HttpError(400, `Type ${CONFIRMATION_WORD} in capitals to confirm`)
  }
  if (confirmsWithGoogle(user)) await requireFreshGoogleSignIn(db, token)
  else await requirePassword(db, user, input.password, ip)
  const deleted = await deleteAccount(db, user.id, (locked) => {
    if (isProtectedAccount(locked.role)) throw forbidden('A super administrator account cannot be deleted')
  })
  if (!deleted) throw new HttpError(404, 'Account not found')
  return deleted
}

async function requirePassword(db: DB, user: User, password: string, ip: string) {
  if (!password) throw new HttpError(400, 'Please enter your password')
  const limits = loginFailureLimits(ip, user.email)
  await assertWithinRateLimits(db, limits)
  if (!(await verifyPassword(user.password_hash, password))) {
    await countHits(db, limits)
    throw forbidden('Wrong password')
  }
}

async function requireFreshGoogleSignIn(db: DB, token: string) {
  const session = await findSessionStart(db, token)
  const fresh = Date.now() - GOOGLE_REAUTH_MINUTES * 60_000
  if (session?.signed_in_with !== 'google' || session.created_at.getTime() < fresh) {
    throw forbidden(
      `Please sign out, sign in with Google again, and delete your account within ${GOOGLE_REAUTH_MINUTES} minutes`,
    )
  }
}
