import type { DB } from '#platform/db.server.ts'
import { queueEmail } from '#platform/email.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { enqueueJob } from '#platform/jobs.server.ts'
import { hashPassword } from '#domain/accounts/password.server.ts'
import { checkVerificationCode } from '#domain/accounts/account.server.ts'
import { sendCodeLimits } from '#domain/limits/account-limits.server.ts'
import { consumeRateLimits } from '#domain/limits/rate-limit.server.ts'
import { revokeUserSessions } from '#domain/sessions/session.server.ts'
import { findUserByEmail } from '#domain/accounts/user.server.ts'
import { clearLoginFailures } from '#domain/limits/login-delay.server.ts'
import { rememberSignInAddress } from '#domain/accounts/sign-in-addresses.server.ts'
import {
  CODE_TTL_MINUTES,
  issueVerificationCode,
  type CodePurpose,
  codeRefused,
} from '#domain/accounts/verification-code.server.ts'

export const registrationCodeSentMessage = 'Verification code sent, please check your email'
/** The same answer whether or not the address has an account, so the form cannot tell who is registered. */
export const resetCodeSentMessage = 'If an account exists for this email, a verification code has been sent to it'
export const passwordResetMessage = 'Your password has been reset, please log in with the new password'

const subjects: Record<CodePurpose, string> = {
  register: 'Your Pawtrait verification code',
  reset: 'Your Pawtrait password reset code',
}

const purposes: Record<CodePurpose, string> = {
  register: 'finish creating your Pawtrait account',
  reset: 'reset your Pawtrait password',
}

/** Issues a code and queues its email in one transaction: the email goes out only if the code exists. */
async function sendCode(db: DB, email: string, purpose: CodePurpose) {
  await db.transaction().execute(async (tx) => {
    const code = await issueVerificationCode(tx, email, purpose)
    await queueEmail(tx, {
      to: email,
      subject: subjects[purpose],
      text: [
        `Your verification code is ${code}`,
        '',
        `Enter it to ${purposes[purpose]}. It expires in ${CODE_TTL_MINUTES} minutes and works once.`,
        'If you did not ask for it, you can ignore this email.',
      ].join('\n'),
    })
  })
}

/** Send Code on the register form. */
export async function sendRegistrationCode(db: DB, email: string, ip: string) {
  await consumeRateLimits(db, sendCodeLimits(ip, email, 'register'))
  if (await findUserByEmail(db, email)) throw new HttpError(409, 'This email is already registered')
  await sendCode(db, email, 'register')
}

/**
 * Forgot password, step 1. The request does the same work for every address (count the limits,
 * queue one job), so neither its answer nor its timing tells whether the address has an account;
 * the worker's send_password_reset job looks the account up (emailPasswordResetCode).
 */
export async function sendPasswordResetCode(db: DB, email: string, ip: string) {
  await consumeRateLimits(db, sendCodeLimits(ip, email, 'reset'))
  await enqueueJob(db, 'send_password_reset', { email })
}

/** The send_password_reset job: a code goes out only to an existing account. */
export async function emailPasswordResetCode(db: DB, email: string) {
  if (await findUserByEmail(db, email)) await sendCode(db, email, 'reset')
}

interface PasswordReset {
  email: string
  verificationCode: string
  password: string
}

/** Forgot password, step 2: with a valid reset code, sets the new password and signs out every session. */
export async function resetPassword(db: DB, input: PasswordReset, ip: string) {
  await checkVerificationCode(db, input.email, 'reset', input.verificationCode, ip)
  const user = await findUserByEmail(db, input.email)
  // A code is only issued for an existing account; this is one deleted since.
  if (!user) throw codeRefused('The verification code has expired or is invalid, please request a new one')
  await db
    .updateTable('users')
    .set({ password_hash: await hashPassword(input.password), email_verified: true })
    .where('id', '=', user.id)
    .execute()
  await revokeUserSessions(db, user.id)
  // Whoever reads the mailbox is the owner: guesses at the old password no longer hold them back.
  await clearLoginFailures(db, input.email)
  await rememberSignInAddress(db, user.id, ip)
}
