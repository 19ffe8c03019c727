import type { SignInMethod, User } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { startSession } from '#domain/sessions/auth.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { forbidden, HttpError } from '#domain/http-error.server.ts'
import { hashPassword, verifyPassword } from '#domain/accounts/password.server.ts'
import { checkCodeLimits, loginFailureLimits, registrationLimits } from '#domain/limits/account-limits.server.ts'
import { recordLogin, recordRegistration } from '#domain/analytics/events.server.ts'
import { assertWithinRateLimits, consumeRateLimits, countHits } from '#domain/limits/rate-limit.server.ts'
import { hashToken } from '#domain/sessions/session.server.ts'
import { createUser, findUserByEmail, findUserById } from '#domain/accounts/user.server.ts'
import { claimLoginAttempt, clearLoginFailures, countLoginFailure } from '#domain/limits/login-delay.server.ts'
import { hasSignedInFrom, rememberSignInAddress } from '#domain/accounts/sign-in-addresses.server.ts'
import { consumeVerificationCode, type CodePurpose } from '#domain/accounts/verification-code.server.ts'
import { recordReferral } from '#domain/sharing/referrals.server.ts'

export const bannedMessage = 'Your account has been banned, please contact the administrator'
const emailTaken = () => new HttpError(409, 'This email is already registered')

export function isEmailVerificationEnabled() {
  return getEnv().EMAIL_VERIFICATION === 'on'
}

/** Starts a session for the user: the token, its Set-Cookie header, and the user with lastLogin updated. */
export async function signIn(db: DB, userId: string, method: SignInMethod = 'password') {
  const session = await startSession(userId, method)
  const user = await findUserById(db, userId)
  if (!user) throw new HttpError(404, 'Account not found')
  return { ...session, user }
}

/**
 * Email and password login. An unknown email costs the same time as a wrong password (a decoy
 * hash is verified), and both answer the same message. Only failures count against the per-client
 * limits; the account's growing delay (login-delay.server.ts) holds back every client but those the
 * user has signed in from before, and a right password clears it.
 */
export async function logIn(db: DB, input: { email: string; password: string }, ip: string) {
  const limits = loginFailureLimits(ip, input.email)
  await assertWithinRateLimits(db, limits)
  const user = await findUserByEmail(db, input.email)
  const ownersClient = user !== undefined && (await hasSignedInFrom(db, user.id, ip))
  if (!ownersClient) await claimLoginAttempt(db, input.email)
  const valid = await verifyPassword(user?.password_hash, input.password)
  if (!user || !valid) {
    await countHits(db, limits)
    if (ownersClient) await countLoginFailure(db, input.email)
    throw new HttpError(401, 'Invalid email or password')
  }
  await clearLoginFailures(db, input.email)
  if (user.is_banned) throw forbidden(bannedMessage)
  await rememberSignInAddress(db, user.id, ip)
  const session = await signIn(db, user.id)
  recordLogin(user.id, ip, 'password')
  return session
}

/** Checks a code the user typed, counting the try against the per-IP and per-account limits. */
export async function checkVerificationCode(db: DB, email: string, purpose: CodePurpose, code: string, ip: string) {
  await consumeRateLimits(db, checkCodeLimits(ip, email))
  await consumeVerificationCode(db, email, purpose, code)
}

interface Registration {
  name: string
  email: string
  password: string
  verificationCode?: string
}

/**
 * Creates the account (with the new-user bonus) and signs it in. With verification on, the register
 * code must match first, so the bonus only ever goes to a verified address. Accounts created per
 * address are limited (the bonus could otherwise be farmed with throw-away addresses). `referralSlug`:
 * the share page the visitor came through (referrals.server.ts).
 */
export async function register(db: DB, input: Registration, ip: string, referralSlug?: string | null) {
  const env = getEnv()
  const limits = registrationLimits(ip, env.REGISTRATIONS_PER_IP_PER_HOUR, env.REGISTRATIONS_PER_IPV6_48_PER_HOUR)
  await assertWithinRateLimits(db, limits)
  if (await findUserByEmail(db, input.email)) throw emailTaken()
  const verified = isEmailVerificationEnabled()
  if (verified) await checkVerificationCode(db, input.email, 'register', input.verificationCode ?? '', ip)
  const user = await createUser(db, {
    name: input.name,
    email: input.email,
    password: input.password,
    emailVerified: verified,
  }).catch((error: unknown) => {
    // Two registrations of one address at the same moment: the unique index decides.
    if ((error as { code?: string }).code === '23505') throw emailTaken()
    throw error
  })
  await countHits(db, limits)
  // Checked before this client is remembered as the new user's own.
  if (referralSlug) await recordReferral(db, user, referralSlug, ip)
  await rememberSignInAddress(db, user.id, ip)
  recordRegistration(user.id, ip, 'password')
  return signIn(db, user.id)
}

interface ProfileChange {
  name: string
  email?: string
  password?: string
  currentPassword?: string
}

/**
 * Renames the user and, when given, sets a new password; a new password signs out every other
 * session (the current one, `keepToken`, stays). Changing a password needs the current one, unless
 * the account has none (Google sign-in).
 */
export async function updateProfile(db: DB, user: User, change: ProfileChange, keepToken: string | null, ip: string) {
  if (change.email !== undefined && change.email.trim().toLowerCase() !== user.email.toLowerCase()) {
    throw new HttpError(400, 'Email cannot be changed')
  }
  if (change.password && user.password_hash) {
    // Someone at an unlocked screen must not be able to take the account over.
    if (!change.currentPassword) throw new HttpError(400, 'Please enter your current password to set a new one')
    // A wrong current password counts as a failed login: a session cannot be used to guess it.
    const limits = loginFailureLimits(ip, user.email)
    await assertWithinRateLimits(db, limits)
    if (!(await verifyPassword(user.password_hash, change.currentPassword))) {
      await countHits(db, limits)
      throw new HttpError(400, 'The current password is incorrect')
    }
  }
  const passwordHash = change.password ? await hashPassword(change.password) : undefined
  return db.transaction().execute(async (tx) => {
    const updated = await tx
      .updateTable('users')
      .set({ name: change.name, ...(passwordHash ? { password_hash: passwordHash } : {}) })
      .where('id', '=', user.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    if (passwordHash) {
      await tx
        .deleteFrom('sessions')
        .where('user_id', '=', user.id)
        .$if(keepToken !== null, (query) => query.where('token_hash', '!=', hashToken(keepToken ?? '')))
        .execute()
    }
    return updated
  })
}
